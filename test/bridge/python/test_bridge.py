"""Unit tests of the Python bridge (stdlib unittest; run by test/python-bridge-python.test.ts).

The FastWorkflow tests run against taubridge's stand-in package (a contract test: it mirrors the
documented shapes of FastWorkflow 2.24.1, it is not FastWorkflow).
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BRIDGE_DIR = os.path.join(REPO, "bridge", "python")
STANDIN = os.path.join(REPO, "test", "fixtures", "fastworkflow", "standin")
RETAIL_WORKFLOW = os.path.join(REPO, "test", "fixtures", "fastworkflow", "retail_workflow")

for path in (BRIDGE_DIR, STANDIN):
    if path not in sys.path:
        sys.path.insert(0, path)

from taubridge_bridge import fastworkflow_patch, generic, hooks, runtime  # noqa: E402
from taubridge_bridge.rpc import RpcError  # noqa: E402


class FakePeer:
    """Stands for the Node parent: records tool.execute calls and answers them."""

    closed = False

    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer or (lambda params: {"output": f"observed {params['toolName']} {params['rawArguments']}"})

    def request(self, method, params=None, timeout=None):
        self.calls.append((method, params))
        return self.answer(params)

    def notify(self, method, params=None):
        return None


def _env(**extra):
    env = dict(os.environ)
    env.pop("TAUBRIDGE_BRIDGE", None)
    env["PYTHONPATH"] = os.pathsep.join([BRIDGE_DIR, STANDIN])
    env.update(extra)
    return env


class ArgumentSerialization(unittest.TestCase):
    def test_floats_stay_floats(self):
        self.assertEqual(runtime.dumps_arguments({"amount": 100.0, "count": 3}), '{"amount": 100.0, "count": 3}')

    def test_non_finite_and_unknown_values(self):
        text = runtime.dumps_arguments({"x": float("nan"), "when": {1, 2}})
        self.assertEqual(json.loads(text), {"x": "nan", "when": [1, 2]})

    def test_parameters_from_dict_none_and_models(self):
        from fastworkflow._standin import Model

        class Input(Model):
            order_id: str = "NOT_FOUND"
            reason: str = "NOT_FOUND"
            amount: float = 0.0

        self.assertEqual(fastworkflow_patch.serialize_parameters(None), {})
        self.assertEqual(fastworkflow_patch.serialize_parameters({"a": 1}), {"a": 1})
        # the NOT_FOUND sentinel of a field nobody filled is dropped
        self.assertEqual(fastworkflow_patch.serialize_parameters(Input(order_id="#W1", amount=8.0)), {"order_id": "#W1", "amount": 8.0})

    def test_pydantic_models_when_available(self):
        try:
            import pydantic
        except ImportError:
            self.skipTest("pydantic is not installed")
        if not hasattr(pydantic.BaseModel, "model_dump"):
            self.skipTest("pydantic v1")

        class Input(pydantic.BaseModel):
            user_id: str
            amount: float
            items: list = []

        kwargs = fastworkflow_patch.serialize_parameters(Input(user_id="u", amount=8))
        self.assertEqual(kwargs, {"user_id": "u", "amount": 8.0, "items": []})
        self.assertEqual(runtime.dumps_arguments(kwargs), '{"user_id": "u", "amount": 8.0, "items": []}')


class PostImportHooks(unittest.TestCase):
    def test_callback_runs_on_lazy_import_before_the_importer_sees_names(self):
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "tb_lazy_tools.py"), "w") as handle:
                handle.write("def tool(x):\n    return 'original'\n")
            with open(os.path.join(directory, "tb_lazy_user.py"), "w") as handle:
                handle.write("from tb_lazy_tools import tool\n")
            sys.path.insert(0, directory)
            try:
                seen = []

                def patch(module):
                    seen.append(module.__name__)
                    module.tool = lambda x: "patched"

                hooks.when_imported("tb_lazy_tools", patch)
                user = importlib.import_module("tb_lazy_user")
                self.assertEqual(seen, ["tb_lazy_tools"])
                self.assertEqual(user.tool(1), "patched")
                # the module looks as if no hook had been involved
                tools = sys.modules["tb_lazy_tools"]
                self.assertNotIn("Hooked", type(tools.__loader__).__name__)
                self.assertIs(tools.__spec__.loader, tools.__loader__)
            finally:
                sys.path.remove(directory)

    def test_already_imported_module_is_patched_at_once(self):
        import json as already

        seen = []
        hooks.when_imported("json", lambda module: seen.append(module is already))
        self.assertEqual(seen, [True])


class GenericTargets(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp()
        with open(os.path.join(self.directory, "tb_generic_tools.py"), "w") as handle:
            handle.write(
                textwrap.dedent(
                    """
                    RAN = []
                    def get_user_details(user_id, verbose=False):
                        RAN.append("get_user_details")
                        return "native"
                    class Box:
                        def cancel(self, order_id, reason="no longer needed"):
                            RAN.append("cancel")
                            return "native"
                        @staticmethod
                        def refund(order_id, **extra):
                            RAN.append("refund")
                            return "native"
                        @classmethod
                        def lookup(cls, *ids):
                            RAN.append("lookup")
                            return "native"
                    def helper(x):
                        RAN.append("helper")
                        return "native helper"
                    """
                )
            )
        sys.path.insert(0, self.directory)
        self.peer = FakePeer(lambda params: {"passthrough": True} if params["toolName"] == "helper" else {"output": "bridged " + params["rawArguments"]})
        runtime.attach(self.peer)

    def tearDown(self):
        runtime.attach(None)
        sys.path.remove(self.directory)
        sys.modules.pop("tb_generic_tools", None)

    def test_functions_and_methods_are_bridged_with_named_arguments(self):
        generic.install(
            [
                "tb_generic_tools:get_user_details",
                "tb_generic_tools:Box.cancel=cancel_pending_order",
                "tb_generic_tools:Box.refund",
                "tb_generic_tools:Box.lookup",
                "tb_generic_tools:helper",
            ]
        )
        tools = importlib.import_module("tb_generic_tools")
        self.assertEqual(tools.get_user_details("sara_doe_496"), 'bridged {"user_id": "sara_doe_496"}')
        self.assertEqual(tools.Box().cancel("#W1"), 'bridged {"order_id": "#W1"}')
        self.assertEqual(tools.Box.refund("#W2", amount=5.0), 'bridged {"order_id": "#W2", "amount": 5.0}')
        self.assertEqual(tools.Box.lookup("a", "b"), 'bridged {"ids": ["a", "b"]}')
        self.assertEqual(tools.helper(1), "native helper")  # passthrough runs the original
        self.assertEqual(tools.RAN, ["helper"])
        names = [params["toolName"] for _, params in self.peer.calls]
        self.assertEqual(names, ["get_user_details", "cancel_pending_order", "refund", "lookup", "helper"])

    def test_malformed_target(self):
        with self.assertRaises(ValueError):
            generic.parse_target("no_colon_here")


class StandinFastWorkflow(unittest.TestCase):
    """The three wildcard outcomes, pass-through, and the no-double-step rule, in process."""

    @classmethod
    def setUpClass(cls):
        fastworkflow_patch.install()
        import fastworkflow

        fastworkflow.init({})
        importlib.import_module("fastworkflow.command_executor")
        importlib.import_module("fastworkflow.workflow_agent")
        cls.fw = fastworkflow

    def setUp(self):
        self.log = tempfile.NamedTemporaryFile("w+", delete=False)
        self.log.close()
        os.environ["FASTWORKFLOW_STANDIN_NATIVE_LOG"] = self.log.name
        self.peer = FakePeer(lambda params: {"passthrough": True} if params["toolName"] == "show_store_hours" else {"output": "env says " + params["rawArguments"]})
        runtime.attach(self.peer)
        fastworkflow_patch.set_target("invoke_command")
        self.context = self.fw.WorkflowExecutionContext(run_as_agent=True, session_key="unit")
        self.context.bind_app_workflow(self.fw.Workflow.create(RETAIL_WORKFLOW, workflow_id_str="unit"))
        from fastworkflow import active_workflow

        active_workflow.push_active_workflow(self.context._app_workflow)

    def tearDown(self):
        from fastworkflow import active_workflow

        active_workflow.clear_workflow_stack()
        runtime.attach(None)
        os.unlink(self.log.name)

    def native_runs(self):
        with open(self.log.name) as handle:
            return handle.read().split()

    def invoke(self, command):
        from fastworkflow.command_executor import CommandExecutor

        return CommandExecutor.invoke_command(self.context, command)

    def test_patches_recorded(self):
        self.assertIn(fastworkflow_patch.INVOKE_COMMAND, runtime.patched())
        self.assertIn(fastworkflow_patch.EXECUTE_WORKFLOW_QUERY, runtime.patched())

    def test_success_is_bridged_with_validated_parameters(self):
        output = self.invoke("get_order_details <order_id>W6390527</order_id>")
        self.assertEqual(output.command_responses[0].response, 'env says {"order_id": "#W6390527"}')
        self.assertEqual(output.command_name, "get_order_details")
        self.assertEqual(output.command_parameters.order_id, "#W6390527")
        self.assertEqual(len(self.peer.calls), 1)
        self.assertEqual(self.native_runs(), [])

    def test_command_without_parameters(self):
        output = self.invoke("list_all_product_types")
        self.assertEqual(output.command_responses[0].response, "env says {}")

    def test_handled_is_not_bridged(self):
        output = self.invoke("what_can_i_do")
        self.assertTrue(output.command_handled)
        self.assertIn("get_user_details", output.command_responses[0].response)
        self.assertEqual(self.peer.calls, [])

    def test_failure_is_returned_natively_and_keeps_the_cme_state(self):
        output = self.invoke("get_order_details")
        self.assertFalse(output.success)
        self.assertIn("PARAMETER EXTRACTION ERROR", output.command_responses[0].response)
        self.assertEqual(self.context.cme_workflow.context["NLU_Pipeline_Stage"], self.fw.NLUPipelineStage.PARAMETER_EXTRACTION)
        self.assertEqual(self.peer.calls, [])
        # the next message supplies the missing value, as in FastWorkflow's assistant mode
        output = self.invoke("<order_id>W1</order_id>")
        self.assertEqual(output.command_responses[0].response, 'env says {"order_id": "#W1"}')

    def test_agent_path_aborts_after_a_parameter_error(self):
        from fastworkflow import workflow_agent

        text = workflow_agent._execute_workflow_query("get_order_details", chat_session_obj=self.context)
        self.assertIn("PARAMETER EXTRACTION ERROR", text)
        self.assertIn("command aborted", text)
        self.assertEqual(self.context.cme_workflow.context["NLU_Pipeline_Stage"], self.fw.NLUPipelineStage.INTENT_DETECTION)

    def test_passthrough_runs_the_app_command_once_and_the_wildcard_once(self):
        from fastworkflow.command_executor import CommandExecutor

        calls = []
        original = fastworkflow_patch._originals["perform_action"]

        def counting(cls, workflow, action):
            calls.append(action.command_name)
            return original(cls, workflow, action)

        fastworkflow_patch._originals["perform_action"] = counting
        try:
            # the patched perform_action closes over the original; count through a wrapper instead
            wrapped = CommandExecutor.__dict__["perform_action"]
            CommandExecutor.perform_action = classmethod(lambda cls, workflow, action: (calls.append(action.command_name), wrapped.__func__(cls, workflow, action))[1])
            output = self.invoke("show_store_hours")
        finally:
            CommandExecutor.perform_action = wrapped
            fastworkflow_patch._originals["perform_action"] = original
        self.assertEqual(output.command_responses[0].response, "native show_store_hours {}")
        self.assertEqual(self.native_runs(), ["show_store_hours"])
        self.assertEqual(calls.count("wildcard"), 2)  # planned once, replayed (not recomputed) once
        self.assertEqual(len(self.peer.calls), 1)

    def test_execute_workflow_query_target(self):
        from fastworkflow import workflow_agent

        fastworkflow_patch.set_target("execute_workflow_query")
        text = workflow_agent._execute_workflow_query("get_user_details <user_id>mei_kovacs_8020</user_id>", chat_session_obj=self.context)
        self.assertEqual(text, 'env says {"user_id": "mei_kovacs_8020"}')
        self.assertEqual(self.context.action_log[-1]["command_name"], "get_user_details")
        text = workflow_agent._execute_workflow_query("get_order_details", chat_session_obj=self.context)
        self.assertIn("command aborted", text)  # FastWorkflow's own abort, kept
        self.assertEqual(len(self.peer.calls), 1)
        self.assertEqual(self.native_runs(), [])

    def test_an_error_after_the_step_never_steps_again(self):
        agent = self._agent()
        fw = self.fw
        original = fw.CommandOutput

        class Exploding(original):
            def __init__(self, **data):
                raise RuntimeError("rendering failed")

        fw.CommandOutput = Exploding
        try:
            # The bridge cannot build any result after the step: it ends the turn with BridgeFailure,
            # which FastWorkflow's retry loop (except Exception) does not catch.
            with self.assertRaises(runtime.BridgeFailure):
                agent.tools["execute_workflow_query"](command="get_user_details <user_id>mei_kovacs_8020</user_id>")
        finally:
            fw.CommandOutput = original
        self.assertEqual(len(self.peer.calls), 1)  # stepped once, never retried

    def test_a_lost_channel_ends_the_turn_without_retrying(self):
        agent = self._agent()

        def lost(params):
            raise RpcError(-32000, "parent gone")

        self.peer.answer = lost
        with self.assertRaises(runtime.BridgeFailure):
            agent.tools["execute_workflow_query"](command="get_user_details <user_id>mei_kovacs_8020</user_id>")
        self.assertEqual(len(self.peer.calls), 1)

    def test_inactive_runtime_delegates(self):
        runtime.attach(None)
        output = self.invoke("get_user_details <user_id>x_y_1</user_id>")
        self.assertTrue(output.command_responses[0].response.startswith("native get_user_details"))

    def _agent(self):
        from fastworkflow.workflow_agent import initialize_workflow_tool_agent

        agent = initialize_workflow_tool_agent(self.context)
        self.context._workflow_tool_agent = agent
        return agent


class Injection(unittest.TestCase):
    """sitecustomize: off without the flag, on with it (patch on lazy import), chain-loading."""

    PROBE = (
        "import fastworkflow; fastworkflow.init({}); import fastworkflow.command_executor as c; "
        "print('PATCHED' if getattr(c.CommandExecutor, '__taubridge_patched__', False) else 'NATIVE', flush=True)"
    )

    def test_without_the_flag_nothing_is_patched(self):
        result = subprocess.run([sys.executable, "-c", self.PROBE], env=_env(), capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("NATIVE", result.stdout)

    def test_with_the_flag_the_lazy_import_is_patched_and_the_bridge_serves(self):
        parent, child = socket.socketpair()
        try:
            env = _env(TAUBRIDGE_BRIDGE="1", TAUBRIDGE_BRIDGE_CHANNEL=f"fd:{child.fileno()}")
            process = subprocess.Popen(
                [sys.executable, "-c", self.PROBE], env=env, pass_fds=[child.fileno()], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            child.close()
            reader = parent.makefile("rb")
            ready = json.loads(reader.readline())
            self.assertEqual(ready["method"], "bridge.ready")
            self.assertEqual(ready["params"]["launch"], "sitecustomize")
            self.assertIn("fastworkflow.command_executor", ready["params"]["watched"])
            printed = [process.stdout.readline().strip() for _ in range(2)]  # the stand-in's import chatter, then the probe
            self.assertEqual(printed[-1], "PATCHED", printed)
            # the program finished; the bridge keeps the process alive until the harness shuts it down
            self.assertIsNone(process.poll())
            parent.sendall(b'{"jsonrpc":"2.0","id":1,"method":"bridge.shutdown"}\n')
            lines = []
            while True:
                line = reader.readline()
                if not line:
                    break
                lines.append(json.loads(line))
            process.communicate(timeout=30)
            reader.close()
            self.assertTrue(any(message.get("id") == 1 for message in lines))
            self.assertTrue(any(message.get("method") == "bridge.patched" for message in lines))
            self.assertEqual(process.returncode, 0)
        finally:
            parent.close()

    def test_the_next_sitecustomize_is_chain_loaded(self):
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "sitecustomize.py"), "w") as handle:
                handle.write("import os\nos.environ['TB_CHAINED'] = 'yes'\n")
            env = _env()
            env["PYTHONPATH"] = os.pathsep.join([BRIDGE_DIR, directory])
            result = subprocess.run(
                [sys.executable, "-c", "import os; print(os.environ.get('TB_CHAINED'))"], env=env, capture_output=True, text=True, timeout=60
            )
            self.assertEqual(result.stdout.strip(), "yes", result.stderr)


if __name__ == "__main__":
    unittest.main()
