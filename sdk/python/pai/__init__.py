"""pai's Python SDK: training code talking to its pai-launch launcher.

The API is in pai.job_monitor (also importable as aimaster.job_monitor, the name PAI-DLC's
AIMaster uses). Importing this package alone does nothing.
"""
