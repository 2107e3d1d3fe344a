"""The HTTP API and its small web page: a thin layer over ``chemground.qa``."""
