"""Many devices: OneFlow's multi-device sessions as torch.distributed process groups (one process per device).

``group`` is the process group the rest of flowtorch uses; ``launch`` starts the processes
(``python -m flowtorch --nproc N script.py``, through torch's elastic launcher).
"""
