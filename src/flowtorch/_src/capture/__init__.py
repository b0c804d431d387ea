"""Capture: a job body run once with lazy blobs, recorded as a torch.fx graph."""
