"""flowtorch internals."""
