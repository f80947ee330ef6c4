"""The ORIGINAL τ³ banking_knowledge `shell` tool, timed, for taubridge's sandbox benchmark.

Runs the shell probes of `fixtures/shell_probes_banking_knowledge.json` through the original's own
code: per episode a fresh `get_environment(retrieval_variant=…)` (which builds the variant's toolkit
and, in `_create_sandbox`, exports the knowledge base into `agentic_search_<8 hex>/knowledge_base`
under the system temp directory), then one orchestrator hop per command (`get_response` on a
`ToolCall`, then `sync_tools`). It times every hop and, separately, the export of the knowledge base
(`retrieval._create_sandbox`), and checks every content, error flag and DB hash against the fixture
(the sandbox directory's random name compared as a placeholder). The original never removes its
sandbox directories; this driver removes the ones it made at the end, outside the timings.

`srt` must be on PATH (taubridge's own `node_modules/.bin`, where npm installs
`@anthropic-ai/sandbox-runtime@0.0.23`), with Debian's bubblewrap, ripgrep and socat.

Environment: as tau2_oracle.py (TAUBRIDGE_TAU2_ORIGINAL, TAUBRIDGE_ORIGINAL_STANDINS,
TAU2_DATA_DIR or TAUBRIDGE_SHARED).
With `--sandbox-only`, only `knowledge/sandbox_manager.py` of the pinned sources in the shared data
is loaded (it needs nothing but the standard library): the export and `run_command`, with
`ShellMixin.shell` compiled from `retrieval_mixins.py`, without the environment (used when the
original's dependencies are not importable).

Usage:
  python tau3_shell.py --fixture shell_probes_banking_knowledge.json [--rounds N] [--exports N] [--sandbox-only]
Prints one JSON object on stdout.
"""

import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import atexit  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402


SANDBOX_ONLY = "--sandbox-only" in sys.argv


def _prepare_paths() -> None:
    original = os.environ.get("TAUBRIDGE_TAU2_ORIGINAL")
    if not original:
        sys.exit("TAUBRIDGE_TAU2_ORIGINAL is not set (the original tau2-bench checkout)")
    sys.path.insert(0, os.path.join(original, "src"))
    standins = os.environ.get("TAUBRIDGE_ORIGINAL_STANDINS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "stand-ins")
    sys.path.insert(1, standins)
    if not os.environ.get("TAU2_DATA_DIR"):
        shared = os.environ.get("TAUBRIDGE_SHARED")
        if not shared:
            sys.exit("set TAU2_DATA_DIR (the original's data root) or TAUBRIDGE_SHARED")
        source = os.path.join(shared, "tau2-bench")
        root = tempfile.mkdtemp(prefix="tau2-data-")
        atexit.register(shutil.rmtree, root, True)  # only the links go; their targets stay
        domains = os.path.join(root, "tau2", "domains")
        os.makedirs(domains)
        for name in sorted(os.listdir(source)):
            path = os.path.join(source, name)
            if name == "user_simulator":
                os.symlink(path, os.path.join(root, "tau2", name))
            elif os.path.isdir(path) and name not in ("fixtures", "upstream-src"):
                os.symlink(path, os.path.join(domains, name))
        os.environ["TAU2_DATA_DIR"] = root


if SANDBOX_ONLY:
    # Only `knowledge/sandbox_manager.py` (standard library only), from the pinned sources in the
    # shared data: its run_command and the export, without the environment around them.
    import importlib.util  # noqa: E402

    _shared = os.environ.get("TAUBRIDGE_SHARED") or sys.exit("TAUBRIDGE_SHARED is not set")
    _spec = importlib.util.spec_from_file_location("sandbox_manager", os.path.join(_shared, "tau2-bench", "upstream-src", "src", "tau2", "knowledge", "sandbox_manager.py"))
    sandbox_manager = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sandbox_manager)
else:
    _prepare_paths()

    from loguru import logger  # noqa: E402

    logger.remove()
    logger.add(sys.stderr, level="ERROR")

    from tau2.data_model.message import ToolCall  # noqa: E402
    from tau2.domains.banking_knowledge import data_model as bk_data_model  # noqa: E402
    from tau2.domains.banking_knowledge import retrieval as bk_retrieval  # noqa: E402
    from tau2.domains.banking_knowledge.environment import get_environment  # noqa: E402

T_IMPORTED = time.perf_counter()

if "--check-imports" in sys.argv:
    print(json.dumps({"ok": True, "python": sys.version.split()[0], "imports": T_IMPORTED - T_START}))
    sys.exit(0)

if not SANDBOX_ONLY:
    # The fixtures' pinned document order (sorted file names = sorted ids), as their README says: the
    # original's `Path.glob` order is the file system's, and it decides the export order.
    _original_load = bk_data_model.KnowledgeBase.load.__func__

    def _sorted_load(cls, documents_dir):
        loaded = _original_load(cls, documents_dir)
        return cls(documents={key: loaded.documents[key] for key in sorted(loaded.documents)})

    bk_data_model.KnowledgeBase.load = classmethod(_sorted_load)

SANDBOX_NAME = re.compile(r"agentic_search_[0-9a-f]{8}")
_made = []


def _sandbox_of(environment):
    return getattr(environment.tools, "_sandbox", None)


def run_probes(fixture):
    """Every episode of the fixture on a fresh environment; per-hop seconds and mismatches."""
    hops = []
    mismatches = []
    compared = 0
    for episode in fixture["episodes"]:
        environment = get_environment(retrieval_variant=episode["retrieval_variant"])
        sandbox = _sandbox_of(environment)
        if sandbox is not None:
            _made.append(sandbox.sandbox_dir)
        initial = {"agent": environment.get_db_hash(), "user": environment.get_user_db_hash()}
        if initial != episode["expected"]["initialHash"]:
            mismatches.append({"episode": episode["id"], "problem": "initial hash differs"})
        for index, (action, want) in enumerate(zip(episode["actions"], episode["expected"]["steps"])):
            call = ToolCall(id=f"call_{index}", name=action["name"], arguments=action["arguments"], requestor=action["requestor"])
            started = time.perf_counter()
            message = environment.get_response(call)
            environment.sync_tools()
            hops.append({"episode": episode["id"], "command": action["arguments"].get("command"), "seconds": time.perf_counter() - started})
            compared += 1
            got = SANDBOX_NAME.sub("agentic_search_XXXXXXXX", message.content or "")
            expected = SANDBOX_NAME.sub("agentic_search_XXXXXXXX", want["content"])
            hash_now = {"agent": environment.get_db_hash(), "user": environment.get_user_db_hash()}
            if got != expected or bool(message.error) != bool(want["error"]) or hash_now != want["hash"]:
                mismatches.append({"episode": episode["id"], "step": index, "got": got[:300], "want": expected[:300]})
    return hops, compared, mismatches


def _documents():
    """The knowledge base's documents in sorted id order, as `_create_sandbox` passes them."""
    directory = os.path.join(os.environ["TAUBRIDGE_SHARED"], "tau2-bench", "banking_knowledge", "documents")
    documents = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            with open(os.path.join(directory, name)) as fp:
                doc = json.load(fp)
            documents.append({"id": doc["id"], "title": doc["title"], "content": doc["content"]})
    return sorted(documents, key=lambda doc: doc["id"])


def _original_shell_method():
    """`ShellMixin.shell` as the original writes it, compiled from `retrieval_mixins.py` in the pinned
    sources (its module imports the original's toolkit machinery, which is not importable here)."""
    import ast
    import textwrap

    path = os.path.join(os.environ["TAUBRIDGE_SHARED"], "tau2-bench", "upstream-src", "src", "tau2", "domains", "banking_knowledge", "retrieval_mixins.py")
    with open(path) as fp:
        source = fp.read()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "ShellMixin":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "shell":
                    namespace = {}
                    exec(textwrap.dedent(ast.get_source_segment(source, item)), namespace)  # the method without its decorator
                    return namespace["shell"]
    sys.exit(f"{path}: no ShellMixin.shell")


class _Toolkit:
    """`self` for `ShellMixin.shell`: the toolkit's `_sandbox`."""

    def __init__(self, sandbox):
        self._sandbox = sandbox


def run_probes_sandbox_only(fixture):
    """The probes through `SandboxManager` alone: a fresh sandbox and export per episode, then `run_command` per command."""
    hops = []
    mismatches = []
    compared = 0
    documents = _documents()
    shell = _original_shell_method()
    for episode in fixture["episodes"]:
        sandbox = sandbox_manager.SandboxManager(allow_writes=episode["retrieval_variant"] == "terminal_use_write")
        sandbox.export_documents(documents, file_format="md")
        _made.append(sandbox.sandbox_dir)
        for index, (action, want) in enumerate(zip(episode["actions"], episode["expected"]["steps"])):
            command = action["arguments"]["command"]
            started = time.perf_counter()
            content = shell(_Toolkit(sandbox), command)
            hops.append({"episode": episode["id"], "command": command, "seconds": time.perf_counter() - started})
            compared += 1
            if SANDBOX_NAME.sub("agentic_search_XXXXXXXX", content) != SANDBOX_NAME.sub("agentic_search_XXXXXXXX", want["content"]):
                mismatches.append({"episode": episode["id"], "step": index, "got": content[:300], "want": want["content"][:300]})
    return hops, compared, mismatches


def time_exports_sandbox_only(count):
    documents = _documents()
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        sandbox = sandbox_manager.SandboxManager(allow_writes=False)
        sandbox.export_documents(documents, file_format="md")
        seconds.append(time.perf_counter() - started)
        _made.append(sandbox.sandbox_dir)
    return seconds


def time_exports(count, allow_writes):
    """Seconds of `_create_sandbox` (directory, srt settings, every document and INDEX.md written)."""
    knowledge_base = bk_data_model.KnowledgeBase.load(str(bk_retrieval.DATA_DIR / "tau2" / "domains" / "banking_knowledge" / "documents"))
    spec = bk_retrieval.ShellSpec(allow_writes=allow_writes)
    seconds = []
    for _ in range(count):
        started = time.perf_counter()
        sandbox = bk_retrieval._create_sandbox(knowledge_base, spec)
        seconds.append(time.perf_counter() - started)
        _made.append(sandbox.sandbox_dir)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--rounds", type=int, default=1, help="times the whole probe set is run")
    parser.add_argument("--exports", type=int, default=10, help="knowledge-base exports timed")
    parser.add_argument("--sandbox-only", action="store_true", help="only sandbox_manager.py (no other dependency than the standard library)")
    args = parser.parse_args()
    with open(args.fixture) as fp:
        fixture = json.load(fp)
    hops = []
    compared = 0
    mismatches = []
    try:
        for _ in range(args.rounds):
            round_hops, round_compared, round_mismatches = run_probes_sandbox_only(fixture) if SANDBOX_ONLY else run_probes(fixture)
            hops.extend(round_hops)
            compared += round_compared
            mismatches.extend(round_mismatches)
        exports = time_exports_sandbox_only(args.exports) if SANDBOX_ONLY else time_exports(args.exports, False)
    finally:
        for directory in _made:
            shutil.rmtree(directory, ignore_errors=True)
    json.dump(
        {
            "python": sys.version.split()[0],
            "scope": "sandbox_manager.py and ShellMixin.shell only (no environment)" if SANDBOX_ONLY else "the original environment's get_response",
            "imports": T_IMPORTED - T_START,
            "hops": hops,
            "exports": exports,
            "fixture_check": {"compared": compared, "mismatches": mismatches},
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
