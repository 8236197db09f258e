"""Puts sdk/python first on sys.path, so that the tests import the source tree and not
an installed copy. Test modules import it before pai."""

import os
import sys

#: sdk/python of this checkout.
SDK_DIR = os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sdk", "python"))

if SDK_DIR not in sys.path:
    sys.path.insert(0, SDK_DIR)
