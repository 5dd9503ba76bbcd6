project = "invoice"
extensions = []
html_theme = "alabaster"
