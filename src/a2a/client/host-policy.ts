/**
 * Which hosts outbound A2A calls may reach (`--allow-agent-host` on the server, `allowHosts` as an
 * agent option). A URL is checked before anything is sent: an IP literal against the allowed
 * addresses and networks, a host name by name or by every address it resolves to. The same rule
 * runs again inside the connection's DNS lookup, so a name that resolves differently between the
 * check and the connection (DNS rebinding) is refused there too, before a socket opens.
 *
 * Entries: `loopback` (127.0.0.0/8, ::1 and names resolving only there), `*` (any host), a host
 * name (`agent.example.com`, or `*.example.com` for its subdomains), an IP address, a network in
 * CIDR form (`10.0.0.0/8`, `fd00::/8`), or a URL (its host).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";
import { A2AHostRefusedError } from "./errors.ts";

/** A parsed allow-list. */
export interface HostPolicy {
  /** The entries as given, for messages. */
  readonly entries: readonly string[];
  /** Refuses (with `A2AHostRefusedError`) a URL whose host is not allowed; resolves names to check their addresses. */
  check(url: string, what: string): Promise<void>;
  /** True when the resolved address may be connected to (for a host name the list does not name). */
  allowsAddress(address: string): boolean;
  /** True when the host name itself is listed (its addresses are then trusted). */
  allowsName(host: string): boolean;
}

/** The default of a server: loopback only. */
export const LOOPBACK_ONLY: readonly string[] = ["loopback"];

function bareHost(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** Parses allow-list entries (a comma list, or several); an entry that is none of the forms is a ConfigError-like refusal. */
export function hostPolicy(entries: readonly string[]): HostPolicy {
  const blocks = new BlockList();
  const names: string[] = [];
  const suffixes: string[] = [];
  let any = false;
  for (const given of entries.flatMap((entry) => entry.split(",")).map((entry) => entry.trim().toLowerCase())) {
    // A URL stands for its host (a deployment passes the agent's URL: `${slots.agent.url}`).
    const raw = given.includes("://") && URL.canParse(given) ? bareHost(new URL(given).hostname) : given;
    if (raw === "") continue;
    if (raw === "*") any = true;
    else if (raw === "loopback") {
      blocks.addSubnet("127.0.0.0", 8, "ipv4");
      blocks.addAddress("::1", "ipv6");
      names.push("localhost");
    } else if (raw.includes("/")) {
      const [address, prefix] = raw.split("/");
      const family = isIP(address);
      const bits = Number(prefix);
      if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128))
        throw new A2AHostRefusedError(`--allow-agent-host: "${raw}" is not a network (CIDR such as 10.0.0.0/8)`, raw);
      blocks.addSubnet(address, bits, family === 4 ? "ipv4" : "ipv6");
    } else if (isIP(bareHost(raw))) {
      const address = bareHost(raw);
      blocks.addAddress(address, isIP(address) === 4 ? "ipv4" : "ipv6");
    } else if (raw.startsWith("*.")) suffixes.push(raw.slice(1));
    else if (/^[a-z0-9.-]+$/.test(raw)) names.push(raw);
    else throw new A2AHostRefusedError(`--allow-agent-host: "${raw}" is not a host name, address, network, "loopback" or "*"`, raw);
  }
  const listed = [...entries];
  const allowsAddress = (address: string): boolean => {
    if (any) return true;
    const bare = bareHost(address);
    const mapped = bare.toLowerCase().startsWith("::ffff:") && isIP(bare.slice(7)) === 4 ? bare.slice(7) : bare;
    const family = isIP(mapped);
    return family !== 0 && blocks.check(mapped, family === 4 ? "ipv4" : "ipv6");
  };
  const allowsName = (host: string): boolean => {
    const name = host.toLowerCase().replace(/\.$/, "");
    return any || names.includes(name) || suffixes.some((suffix) => name.endsWith(suffix) && name.length > suffix.length);
  };
  const refuse = (url: string, what: string, detail: string): never => {
    throw new A2AHostRefusedError(`${what} ${url}: ${detail}; allowed: ${listed.join(", ") || "(none)"} (--allow-agent-host); nothing was sent`, url);
  };
  return {
    entries: listed,
    allowsAddress,
    allowsName,
    async check(url: string, what: string): Promise<void> {
      if (any) return;
      let host: string;
      try {
        host = bareHost(new URL(url).hostname);
      } catch {
        return refuse(url, what, "not a URL");
      }
      if (isIP(host)) {
        if (!allowsAddress(host)) refuse(url, what, `the address ${host} is not allowed`);
        return;
      }
      if (allowsName(host)) return;
      const addresses = await resolveAll(host).catch(() => refuse(url, what, `the host ${host} does not resolve`));
      const denied = addresses.find((address) => !allowsAddress(address.address));
      if (denied || addresses.length === 0) refuse(url, what, `the host ${host} resolves to ${denied?.address ?? "nothing"}, which is not allowed`);
    },
  };
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `net.connect` lookup that applies the policy to the addresses a name resolves to, so the
 * connection is refused before a socket opens when they are not allowed (for names the list does
 * not name itself).
 */
export function guardedLookup(policy: HostPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!policy.allowsName(hostname)) {
        const denied = addresses.find((address) => !policy.allowsAddress(address.address));
        if (denied) {
          const refusal = Object.assign(new Error(`refused: ${hostname} resolves to ${denied.address}, which --allow-agent-host does not allow`), { code: "EHOSTREFUSED" });
          return callback(refusal, []);
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      return first ? callback(null, first.address, first.family) : callback(Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" }), []);
    });
  };
}
