"""The way off the bridge: a static migration report, export to plain PyTorch, checkpoint conversion and
pictures of watched data (issue 13)."""
