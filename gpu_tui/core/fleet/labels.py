"""The labels that say which node a GPU series belongs to and which workload holds the GPU, as
they differ between dcgm-exporter versions and the ways Prometheus scrapes it.

- The node: dcgm-exporter releases up to 4.5 (and ``gpu-tui export``) write ``Hostname``, its
  main branch writes ``hostname``; with ``--no-hostname`` neither is written and the scrape
  target (``instance``) names the node.
- The workload (pod mapping on Kubernetes): ``namespace``/``pod``/``container``, or
  ``pod_namespace``/``pod_name``/``container_name`` under ``--use-old-namespace``. A scrape
  without ``honor_labels`` (kube-prometheus' default) gives the series the exporter pod's own
  ``namespace``/``pod``/``container`` and renames the exporter's to ``exported_*``.
- The GPU's UUID: ``UUID``, or ``uuid`` under ``--use-old-namespace``.
"""

from __future__ import annotations

from gpu_tui.core.fleet import dcgm_names

NODE_LABELS = (dcgm_names.LABEL_HOSTNAME, dcgm_names.LABEL_HOSTNAME_LOWER)
"""The labels an exporter names its node by, the first preferred where a series has both."""
INSTANCE = "instance"
"""Prometheus's label for the scrape target: the node's name where no node label is set."""
UUID_LABELS = (dcgm_names.LABEL_UUID, "uuid")
WORKLOAD_NAMINGS: tuple[tuple[str, str, str], ...] = (
    ("exported_namespace", "exported_pod", "exported_container"),
    ("pod_namespace", "pod_name", "container_name"),
    ("namespace", "pod", "container"),
)
"""(namespace, pod, container) label names, the most telling first: ``exported_*`` are the
exporter's labels that the scrape renamed, and the old names can only be the exporter's too;
the new names may be the scrape target's instead (see ``target_workload``)."""
WORKLOAD_LABELS = tuple(name for naming in WORKLOAD_NAMINGS for name in naming)

Workload = tuple[str, str, str]
"""(namespace, pod, container); empty strings where a label is not set."""
NO_WORKLOAD: Workload = ("", "", "")


def node_name(labels: dict[str, str]) -> str:
    """The node a series belongs to: its node label, else its scrape target."""
    return labels.get("Hostname") or labels.get("hostname") or labels.get(INSTANCE) or "?"


def uuid(labels: dict[str, str]) -> str:
    return labels.get(UUID_LABELS[0]) or labels.get(UUID_LABELS[1]) or ""


def workload(labels: dict[str, str]) -> tuple[Workload, int]:
    """The workload a series names and how telling its labels are (0 most: ``exported_*``;
    ``len(WORKLOAD_NAMINGS)`` when it names none)."""
    for rank, (namespace, pod, container) in enumerate(WORKLOAD_NAMINGS):
        found = (labels.get(namespace, ""), labels.get(pod, ""), labels.get(container, ""))
        if any(found):
            return found, rank
    return NO_WORKLOAD, len(WORKLOAD_NAMINGS)


def target_workload(labels: dict[str, str]) -> Workload:
    """A scrape target's own namespace, pod and container (on ``up``: the exporter pod's, where
    service discovery labels its targets so). A GPU series whose workload labels are these was
    labelled by the scrape, not by the exporter's pod mapping: the GPU holds no workload."""
    return labels.get("namespace", ""), labels.get("pod", ""), labels.get("container", "")
