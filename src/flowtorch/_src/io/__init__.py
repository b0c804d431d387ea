"""Checkpoints: OneFlow snapshot directories (``snapshot``, ``safe_paths``) and the session API over them
(``checkpoint``, ``interface``). The package imports none of its modules."""
