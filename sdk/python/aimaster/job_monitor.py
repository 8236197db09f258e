"""AIMaster's job_monitor: the same functions, classes and objects as pai.job_monitor."""

from pai.job_monitor import *  # noqa: F401,F403 - a re-export, names listed in __all__
from pai.job_monitor import __all__  # noqa: F401
