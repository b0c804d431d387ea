"""OneFlow's in-job data pipeline: OFRecord files, readers, decoders, image ops, and the loader that
runs them on ``torch.utils.data`` (see :mod:`flowtorch._src.data.pipeline`)."""
