/**
 * The user's phone as τ²'s `TelecomUserTools` simulates it: the derived behaviour every user tool
 * builds on (network search, whether mobile data works, the speed test, MMS, the status bar,
 * airplane mode, VPN). The numbers are the code's (spec §8.3), not the docstrings'.
 *
 * Field values are read with Python truthiness and equality, because assignments are not
 * validated and setup functions store whatever they are given.
 */
import type { Tau2ToolkitInstance } from "../../src/engine/tau2/toolkit.ts";
import { PyException, PyFloat, PyModel, type PyValue, pyAttributeError, pyBool, pyEquals, pyGetAttr, pyModelValidate, pyNotEquals, pyRequireHashable, pyRound, pyStr } from "../../src/value/index.ts";
import { getAttr, getPath, setAttr } from "./attributes.ts";
import { APNNames, NetworkModePreference, NetworkStatus, NetworkTechnology, PerformanceLevel, SignalStrength, SimStatus, vpnDetailsModel } from "./user-data-model.ts";

/** `self.device`. */
export function device(self: Tau2ToolkitInstance): PyModel {
  return pyGetAttr(self.db, "device") as PyModel;
}

/** `self.surroundings`. */
export function surroundings(self: Tau2ToolkitInstance): PyModel {
  return pyGetAttr(self.db, "surroundings") as PyModel;
}

/** `dict.get(key, default)` on a value that should be a dict. */
function dictGet(dict: PyValue, key: PyValue, fallback: PyValue): PyValue {
  if (!(dict instanceof Map) || dict instanceof PyModel) throw pyAttributeError(dict, "get");
  pyRequireHashable(key);
  return typeof key === "string" && dict.has(key) ? (dict.get(key) as PyValue) : fallback;
}

/** Python's bare `assert` (an AssertionError whose text is empty). */
export function pyAssert(condition: boolean): void {
  if (!condition) throw new PyException("", "AssertionError");
}

/** `_check_sim_status`: a removed SIM reads as missing, whatever its status. */
export function simStatus(self: Tau2ToolkitInstance): PyValue {
  const phone = device(self);
  return pyBool(getAttr(phone, "sim_card_missing")) ? SimStatus.members.MISSING : getAttr(phone, "sim_card_status");
}

function setConnection(phone: PyModel, status: string, technology: string, signal: PyValue): void {
  setAttr(phone, "network_connection_status", status);
  setAttr(phone, "network_technology_connected", technology);
  setAttr(phone, "network_signal_strength", signal);
}

function noService(phone: PyModel): void {
  setConnection(phone, NetworkStatus.members.NO_SERVICE, NetworkTechnology.members.NONE, SignalStrength.members.NONE);
}

/** The signal the surroundings give a technology (`none` where it has none). */
function signalOf(self: Tau2ToolkitInstance, technology: string): PyValue {
  return dictGet(getAttr(surroundings(self), "signal_strength"), technology, SignalStrength.members.NONE);
}

/** The technology an active SIM connects with under a mode preference (anything unknown: 4G). */
function preferredTechnology(self: Tau2ToolkitInstance, preference: PyValue): string {
  const { FOUR_G_5G_PREFERRED, THREE_G_ONLY, TWO_G_ONLY } = NetworkModePreference.members;
  if (pyEquals(preference, FOUR_G_5G_PREFERRED)) {
    return pyEquals(signalOf(self, NetworkTechnology.members.FIVE_G), SignalStrength.members.NONE) ? NetworkTechnology.members.FOUR_G : NetworkTechnology.members.FIVE_G;
  }
  if (pyEquals(preference, THREE_G_ONLY)) return NetworkTechnology.members.THREE_G;
  if (pyEquals(preference, TWO_G_ONLY)) return NetworkTechnology.members.TWO_G;
  return NetworkTechnology.members.FOUR_G;
}

/** `simulate_network_search`: connection, technology and signal from the SIM, the preference and the surroundings. */
export function simulateNetworkSearch(self: Tau2ToolkitInstance): void {
  const phone = device(self);
  const sim = simStatus(self);
  if (pyEquals(sim, SimStatus.members.ACTIVE)) {
    const technology = preferredTechnology(self, getAttr(phone, "network_mode_preference"));
    setConnection(phone, NetworkStatus.members.CONNECTED, technology, signalOf(self, technology));
  } else {
    noService(phone);
  }
  if (pyBool(getAttr(phone, "airplane_mode"))) noService(phone);
  if (pyEquals(getPath(phone, "active_apn_settings", "apn_name"), APNNames.members.BROKEN)) noService(phone);
  if (!pyBool(getAttr(surroundings(self), "line_active"))) noService(phone);
}

/** `_get_mobile_data_working`. */
export function mobileDataWorking(self: Tau2ToolkitInstance): boolean {
  const phone = device(self);
  const around = surroundings(self);
  if (pyBool(getAttr(phone, "airplane_mode")) || pyEquals(getAttr(phone, "network_signal_strength"), SignalStrength.members.NONE)) return false;
  if (pyEquals(getAttr(phone, "network_connection_status"), NetworkStatus.members.NO_SERVICE)) return false;
  if (pyBool(getAttr(around, "is_abroad")) && (!pyBool(getAttr(phone, "roaming_enabled")) || !pyBool(getAttr(around, "roaming_allowed")))) return false;
  if (!pyBool(getAttr(phone, "data_enabled"))) return false;
  if (pyBool(getAttr(around, "mobile_data_usage_exceeded"))) return false;
  return true;
}

const SPEED_RANGE: Readonly<Record<string, readonly [number, number]>> = {
  [NetworkTechnology.members.TWO_G]: [0.1, 0.4],
  [NetworkTechnology.members.THREE_G]: [1.0, 5.0],
  [NetworkTechnology.members.FOUR_G]: [10.0, 100.0],
  [NetworkTechnology.members.FIVE_G]: [50.0, 500.0],
  [NetworkTechnology.members.NONE]: [0.0, 0.0],
};

const SIGNAL_FACTOR: Readonly<Record<string, number>> = {
  [SignalStrength.members.POOR]: 0.2,
  [SignalStrength.members.FAIR]: 0.5,
  [SignalStrength.members.GOOD]: 0.8,
  [SignalStrength.members.EXCELLENT]: 1.0,
  [SignalStrength.members.NONE]: 0.0,
};

function lookup<T>(table: Readonly<Record<string, T>>, key: PyValue, fallback: T): T {
  pyRequireHashable(key);
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key] : fallback;
}

/** `_run_speed_test`: `[speed in Mbps (rounded to 2 places) or null, description]`. */
export function speedTest(self: Tau2ToolkitInstance): [PyFloat | null, string] {
  if (!mobileDataWorking(self)) return [null, "No Connection"];
  const phone = device(self);
  const details = getAttr(phone, "vpn_details");
  const slowVpn = pyBool(getAttr(phone, "vpn_connected")) && pyBool(details) && pyEquals(getAttr(details, "server_performance"), PerformanceLevel.members.POOR);
  let baseFactor = slowVpn ? 0.1 : 1.0;
  if (pyBool(getAttr(phone, "data_saver_mode"))) baseFactor *= 0.2;
  const [low, high] = lookup(SPEED_RANGE, getAttr(phone, "network_technology_connected"), [0.0, 0.0]);
  const signalFactor = lookup(SIGNAL_FACTOR, getAttr(phone, "network_signal_strength"), 0.0);
  const speed = (pyRound(new PyFloat(((low + high) / 2.0) * signalFactor * baseFactor), 2) as PyFloat).value;
  const description = speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
  return [new PyFloat(speed), description];
}

/** `_can_send_mms`: the value of the original's final `storage and sms` (a bool in practice). */
export function canSendMms(self: Tau2ToolkitInstance): PyValue {
  if (!mobileDataWorking(self)) return false;
  const phone = device(self);
  if (pyEquals(getAttr(phone, "network_technology_connected"), NetworkTechnology.members.TWO_G)) return false;
  if (pyBool(getAttr(phone, "wifi_calling_enabled")) && pyBool(getAttr(phone, "wifi_calling_mms_over_wifi"))) return false;
  if (getPath(phone, "active_apn_settings", "mmsc_url") === null) return false;
  const apps = getAttr(phone, "app_statuses");
  const messaging = dictGet(apps, "messaging", null);
  if (messaging === null) return false;
  const storage = getPath(messaging, "permissions", "storage");
  return pyBool(storage) ? getPath(messaging, "permissions", "sms") : storage;
}

const SIGNAL_ICON: Readonly<Record<string, string>> = {
  [SignalStrength.members.NONE]: "\u{1f4f5} No Signal",
  [SignalStrength.members.POOR]: "\u{1f4f6}\u00b9 Poor",
  [SignalStrength.members.FAIR]: "\u{1f4f6}\u00b2 Fair",
  [SignalStrength.members.GOOD]: "\u{1f4f6}\u00b3 Good",
  [SignalStrength.members.EXCELLENT]: "\u{1f4f6}\u2074 Excellent",
};

/** `_check_status_bar`: the indicators joined by ` | ` (raw emoji, as the original returns them). */
export function statusBar(self: Tau2ToolkitInstance): string {
  const phone = device(self);
  const indicators: string[] = [];
  if (pyBool(getAttr(phone, "airplane_mode"))) {
    indicators.push("\u2708\ufe0f Airplane Mode");
  } else {
    indicators.push(lookup(SIGNAL_ICON, getAttr(phone, "network_signal_strength"), "\u{1f4f5} No Signal"));
    const technology = getAttr(phone, "network_technology_connected");
    const hasTechnology = pyNotEquals(technology, NetworkTechnology.members.NONE);
    if (hasTechnology) indicators.push(enumValueOf(technology));
    if (pyBool(getAttr(phone, "data_enabled")) && hasTechnology) {
      indicators.push("\u{1f4f1} Data Enabled");
      if (pyBool(getAttr(phone, "data_saver_mode"))) indicators.push("\u{1f53d} Data Saver");
    } else {
      indicators.push("\u{1f4f5} Data Disabled");
    }
  }
  if (pyBool(getAttr(phone, "wifi_enabled")) && pyBool(getAttr(phone, "wifi_connected"))) {
    const ssid = getAttr(phone, "wifi_ssid");
    indicators.push(pyBool(ssid) ? `\u{1f4e1} Connected to ${pyStr(ssid)}` : "\u{1f4e1} Enabled");
  }
  if (pyBool(getAttr(phone, "vpn_connected"))) indicators.push("\u{1f512} VPN Connected");
  indicators.push(`\u{1f50b} ${pyStr(getAttr(phone, "battery_level"))}%`);
  return indicators.join(" | ");
}

/**
 * `member.value`: enum fields hold their members' values; a field the code filled with something
 * else (assignments are not validated) has no `.value`.
 */
export function enumValueOf(value: PyValue): string {
  if (typeof value === "string") return value;
  throw pyAttributeError(value, "value");
}

/** `_toggle_airplane_mode`: flips airplane mode (turning it on drops Wi-Fi and the VPN), then searches; returns the new state. */
export function toggleAirplaneMode(self: Tau2ToolkitInstance): PyValue {
  const phone = device(self);
  const wasOn = getAttr(phone, "airplane_mode");
  setAttr(phone, "airplane_mode", !pyBool(wasOn));
  if (pyBool(wasOn)) {
    setAttr(phone, "network_connection_status", NetworkStatus.members.SEARCHING);
    if (pyBool(getAttr(phone, "wifi_enabled"))) dropWifi(phone);
  } else {
    dropWifi(phone);
    if (pyBool(getAttr(phone, "vpn_connected"))) disconnectVpn(self);
  }
  simulateNetworkSearch(self);
  return getAttr(phone, "airplane_mode");
}

/** Wi-Fi disconnected: no SSID, no signal. */
export function dropWifi(phone: PyModel): void {
  setAttr(phone, "wifi_connected", false);
  setAttr(phone, "wifi_ssid", null);
  setAttr(phone, "wifi_signal_strength", SignalStrength.members.NONE);
}

/**
 * The VPN `connect_vpn` installs. In the original it is one object per Python process (a class
 * attribute), which `break_vpn` degrades for every later connection; here it is one object per
 * environment, i.e. every environment behaves like a fresh process (as the reference fixtures do).
 */
const defaultVpnDetails = new WeakMap<Tau2ToolkitInstance, PyModel>();

function defaultVpn(self: Tau2ToolkitInstance): PyModel {
  let details = defaultVpnDetails.get(self);
  if (details === undefined) {
    details = pyModelValidate(
      vpnDetailsModel,
      new Map<string, PyValue>([
        ["server_address", "192.168.1.1"],
        ["protocol", "OpenVPN"],
        ["server_performance", PerformanceLevel.members.EXCELLENT],
      ]),
    );
    defaultVpnDetails.set(self, details);
  }
  return details;
}

/** `_connect_vpn`: null when already connected. */
export function connectVpn(self: Tau2ToolkitInstance): boolean | null {
  const phone = device(self);
  if (pyBool(getAttr(phone, "vpn_connected"))) return null;
  setAttr(phone, "vpn_connected", true);
  setAttr(phone, "vpn_details", defaultVpn(self));
  return true;
}

/** `_disconnect_vpn`: false when there was no connection. */
export function disconnectVpn(self: Tau2ToolkitInstance): boolean {
  const phone = device(self);
  if (!pyBool(getAttr(phone, "vpn_connected"))) return false;
  setAttr(phone, "vpn_connected", false);
  setAttr(phone, "vpn_details", null);
  return true;
}
