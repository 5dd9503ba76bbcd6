"""The console's dialogs (modal screens every section may open): the confirmation (:mod:`~.confirm`),
the ``:`` command line, the keys help, sign-in, messages, forms (and forms that suggest paths), the
download path and progress, incident bundles and bulk actions."""
