"""PAI-DLC AIMaster's package name, so that `from aimaster import job_monitor` runs
unchanged under pai-launch. The implementation is pai.job_monitor."""
