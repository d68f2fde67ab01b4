"""Execution engines: the ONNX Runtime encoder (``onnx_encoder``) and the optional Ray engine
(``ray_engine``, needs ``pip install -r requirements-ray.txt``). Importing this package is light."""
