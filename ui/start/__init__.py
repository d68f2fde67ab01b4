"""The Start page's own code (``pages/0_start.py``): what the app answers, the methods with their
cost and speed, the sample set in one click, the accepted upload shapes and a template.

    from ui.start import home
    home.sample_summary(path, home.sample(path).cases)   # one truthful line about a sample set
    home.sample_methods(path)                            # each method's cost and speed on it

Modules: ``home`` (the front page's texts and tables; pure, no Streamlit; the samples read once
per process). Shared with other pages, at the top of ``ui/``: ``data`` (sample files, loading).
"""
