"""The Guide's arithmetic and reference data: will it fit, cloud vs on-prem, metrics, prices."""
