# A minimal A2A 0.3 agent in plain Python (standard library only): it serves its card, keeps one
# chat per A2A contextId, and answers each message with what an OpenAI-compatible model says.
import json, os, urllib.request, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_URL, MODEL, chats = os.environ.get("MODEL_URL", "http://127.0.0.1:8123/v1"), os.environ.get("MODEL", "agent-model"), {}

class Agent(BaseHTTPRequestHandler):
    def send(self, body):
        data = json.dumps(body).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)

    def do_GET(self):  # the agent card, at /.well-known/agent-card.json
        self.send({"name": "python-agent", "version": "1.0", "protocolVersion": "0.3.0", "url": f"http://{self.headers['Host']}/", "capabilities": {}, "skills": [], "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]})

    def do_POST(self):  # JSON-RPC message/send
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        message = request["params"]["message"]
        context = message.get("contextId") or str(uuid.uuid4())
        chat = chats.setdefault(context, [])
        chat.append({"role": "user", "content": "".join(part.get("text", "") for part in message["parts"])})
        call = urllib.request.Request(f"{MODEL_URL}/chat/completions", json.dumps({"model": MODEL, "messages": chat}).encode(), {"Content-Type": "application/json"})
        answer = json.load(urllib.request.urlopen(call))["choices"][0]["message"]["content"]
        chat.append({"role": "assistant", "content": answer})
        self.send({"jsonrpc": "2.0", "id": request["id"], "result": {"kind": "message", "role": "agent", "messageId": str(uuid.uuid4()), "contextId": context, "parts": [{"kind": "text", "text": answer}]}})

server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "9019"))), Agent)
print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
server.serve_forever()
