"""Session-independent checkpoint file formats (OneFlow snapshot directories)."""

from flowtorch._src.io.snapshot import (
    DATA_FILENAME,
    DONE_FILENAME,
    META_FILENAME,
    MissingMetaError,
    SnapshotEntry,
    SnapshotError,
    SnapshotMetaError,
    UnsupportedDataTypeError,
    format_meta,
    is_variable_dir,
    meta_to_numpy_dtype,
    numpy_dtype_to_meta,
    parse_meta,
    read_snapshot,
    read_variable,
    write_snapshot,
)

__all__ = [
    "DATA_FILENAME", "DONE_FILENAME", "META_FILENAME", "MissingMetaError", "SnapshotEntry",
    "SnapshotError", "SnapshotMetaError", "UnsupportedDataTypeError", "format_meta",
    "is_variable_dir", "meta_to_numpy_dtype", "numpy_dtype_to_meta", "parse_meta",
    "read_snapshot", "read_variable", "write_snapshot",
]  # fmt: skip
