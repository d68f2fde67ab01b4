"""``app.py``'s own code: what it draws around every page.

    # app.py
    from ui.shell import sidebar
    sidebar.render()          # LLM settings, before the page
    sidebar.render_status()   # the dataset / run status, after it

Modules: ``sidebar`` (the LLM provider, model, base URL and key; the status of the data and the run
on screen). It imports the shared modules at the top of ``ui/``, never a page's package.
"""
