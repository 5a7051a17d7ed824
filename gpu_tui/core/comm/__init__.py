"""Interconnect: collectives between ranks through ``torch.distributed``, launched by torchrun."""
