"""A toy, deterministic Python agent (no framework, no LLM) for the generic `python-bridge`
strategy: `entry=toy_retail_agent:ToyRetailAgent`. It reads real observations (JSON from the
benchmark environment) to decide its next call, and imports its tools with `from ... import`, which
the bridge's post-import hook patches before this module receives them.
"""

import json

from toy_retail_tools import OrderDesk, find_user_id_by_name_zip, get_user_details, store_hours


class ToyRetailAgent:
    def __init__(self):
        self.desk = OrderDesk()
        self.turns = 0

    def respond(self, message):
        self.turns += 1
        if self.turns > 1:
            return "Is there anything else?"
        user_id = find_user_id_by_name_zip("Mei", "Kovacs", zip="28236")
        user = json.loads(get_user_details(user_id))
        order_id = next(order for order in user["orders"] if order == "#W6390527")
        order = json.loads(self.desk.order_details(order_id))
        bottle = next(item for item in order["items"] if item["name"] == "Water Bottle")
        hours = store_hours()
        result = self.desk.return_items(order_id, [bottle["item_id"]], payment_method_id=user["payment_methods"]["paypal_7644869"]["id"])
        return f"Return requested ({hours}): {result}"
