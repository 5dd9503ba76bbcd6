"""The merged live view of many jobs (``F``)."""
