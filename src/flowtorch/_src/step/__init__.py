"""Step compilation: a captured job graph turned into the function each call runs."""
