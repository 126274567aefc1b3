import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# A GM's own keymap on this machine must not change what the tests press.
# (an existing empty file: a $GMDESK_KEYMAP naming a missing file is reported)
os.environ["GMDESK_KEYMAP"] = os.path.join(os.path.dirname(__file__), "data", "empty-keymap.toml")
