"""Public ops of the dashboards beyond the core six, bound to the default writer."""
