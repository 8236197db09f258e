"""One worker of a distributed XGBoost training for xgboost_job_test.py: joins the Rabit
tracker that pai's xgboost preset started (DMLC_* from the environment, no arguments), trains
on its own shard, and writes OUT_DIR/model-<DMLC_TASK_ID>.json and OUT_DIR/world-<task>.json.

Usage: xgboost_train.py OUT_DIR
"""

import json
import os
import sys

import numpy as np
import xgboost as xgb
from xgboost import collective


def main():
    out = sys.argv[1]
    task = int(os.environ["DMLC_TASK_ID"])
    with collective.CommunicatorContext():
        rng = np.random.default_rng(task)
        features = rng.random((200, 5))
        labels = features @ np.arange(1.0, 6.0)
        booster = xgb.train({"tree_method": "hist", "max_depth": 3},
                            xgb.DMatrix(features, label=labels), num_boost_round=4)
        with open(os.path.join(out, "model-%d.json" % task), "wb") as f:
            f.write(booster.save_raw("json"))
        with open(os.path.join(out, "world-%d.json" % task), "w") as f:
            json.dump({"rank": collective.get_rank(), "world": collective.get_world_size()}, f)


if __name__ == "__main__":
    main()
