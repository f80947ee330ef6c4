"""A toy Python agent's tool functions (taubridge test fixture for the generic `python-bridge`
strategy). Each logs to TOY_AGENT_NATIVE_LOG when its own code runs, so tests can prove that
bridged tools never do.
"""

import json
import os


def _native(name: str) -> None:
    log = os.environ.get("TOY_AGENT_NATIVE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(name + "\n")


def find_user_id_by_name_zip(first_name, last_name, zip):
    _native("find_user_id_by_name_zip")
    return "unknown_user"


def get_user_details(user_id):
    _native("get_user_details")
    return json.dumps({"orders": []})


class OrderDesk:
    def order_details(self, order_id):
        _native("order_details")
        return json.dumps({"items": []})

    def return_items(self, order_id, item_ids, payment_method_id):
        _native("return_items")
        return "native return"


def store_hours():
    _native("store_hours")
    return "open 9 to 5"
