"""Execution engines past one process: the optional Ray engine (``ray_engine``, needs
``pip install -r requirements-ray.txt``). Engines use the encoder (``evaluators.encoder``), never the
reverse. Importing this package is light."""
