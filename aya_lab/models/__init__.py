"""Models named by spec strings: ``smollm2``, ``hf:...``, ``seq2seq:...``, ``fake:...`` (tests)."""
