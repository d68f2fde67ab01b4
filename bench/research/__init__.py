"""Research scripts: experiments whose results did not ship (the learned verifier, detector
ablations). Nothing in the product or in ``bench/``'s measurements imports them; their results
are under ``bench/research/results/`` and summarised in ``docs/research.md``."""
