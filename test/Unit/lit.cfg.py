# -*- Python -*-
# The gtest unit tests, one lit test per gtest case.
import os

import lit.formats

config.name = "AMP-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.amp_obj_root, "bin")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "UnitTests")
