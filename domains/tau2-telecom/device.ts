/**
 * The user's phone as τ²'s `TelecomUserTools` simulates it (τ²:
 * src/tau2/domains/telecom/user_tools.py): the derived behaviour every user tool builds on (network
 * search, whether mobile data works, the speed test, MMS, the status bar, airplane mode, VPN). The
 * numbers are the code's (e.g. `TelecomUserTools._run_speed_test`), not the docstrings'.
 *
 * Field values are read with Python truthiness and equality, because assignments are not
 * validated and setup functions store whatever they are given.
 */
import { phoneMessages } from "./user-messages.ts";
import type { Tau2ToolkitInstance } from "../../src/suites/tau2/engine/toolkit.ts";
import {
  PyFloat,
  type PyModel,
  type PyValue,
  pyAssertionError,
  pyBool,
  pyDictGet,
  pyEnumValue,
  pyEquals,
  pyGetAttr,
  pyModelValidate,
  pyNotEquals,
  pyRequireHashable,
  pyRound,
  pySetAttr,
  pyStr,
} from "../../src/value/index.ts";
import { APNNames, NetworkModePreference, NetworkStatus, NetworkTechnology, PerformanceLevel, SignalStrength, SimStatus, vpnDetailsModel } from "./user-data-model.ts";

/** `self.device`. */
export function device(self: Tau2ToolkitInstance): PyModel {
  return pyGetAttr(self.db, "device") as PyModel;
}

/** `self.surroundings`. */
export function surroundings(self: Tau2ToolkitInstance): PyModel {
  return pyGetAttr(self.db, "surroundings") as PyModel;
}

/** `value.a.b…`: a chain of attribute reads. */
export function getPath(value: PyValue, ...names: string[]): PyValue {
  return names.reduce((current, name) => pyGetAttr(current, name), value);
}

/** A bare `assert condition` of the original (an AssertionError with an empty text). */
export function pyAssert(condition: boolean): void {
  if (!condition) throw pyAssertionError();
}

/** `_check_sim_status`: a removed SIM reads as missing, whatever its status. */
export function simStatus(self: Tau2ToolkitInstance): PyValue {
  const phone = device(self);
  return pyBool(pyGetAttr(phone, "sim_card_missing")) ? SimStatus.members.MISSING : pyGetAttr(phone, "sim_card_status");
}

function setConnection(phone: PyModel, status: string, technology: string, signal: PyValue): void {
  pySetAttr(phone, "network_connection_status", status);
  pySetAttr(phone, "network_technology_connected", technology);
  pySetAttr(phone, "network_signal_strength", signal);
}

function noService(phone: PyModel): void {
  setConnection(phone, NetworkStatus.members.NO_SERVICE, NetworkTechnology.members.NONE, SignalStrength.members.NONE);
}

/** The signal the surroundings give a technology (`none` where it has none). */
function signalOf(self: Tau2ToolkitInstance, technology: string): PyValue {
  return pyDictGet(pyGetAttr(surroundings(self), "signal_strength"), technology, SignalStrength.members.NONE);
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
    const technology = preferredTechnology(self, pyGetAttr(phone, "network_mode_preference"));
    setConnection(phone, NetworkStatus.members.CONNECTED, technology, signalOf(self, technology));
  } else {
    noService(phone);
  }
  if (pyBool(pyGetAttr(phone, "airplane_mode"))) noService(phone);
  if (pyEquals(getPath(phone, "active_apn_settings", "apn_name"), APNNames.members.BROKEN)) noService(phone);
  if (!pyBool(pyGetAttr(surroundings(self), "line_active"))) noService(phone);
}

/** `_get_mobile_data_working`. */
export function mobileDataWorking(self: Tau2ToolkitInstance): boolean {
  const phone = device(self);
  const around = surroundings(self);
  if (pyBool(pyGetAttr(phone, "airplane_mode")) || pyEquals(pyGetAttr(phone, "network_signal_strength"), SignalStrength.members.NONE)) return false;
  if (pyEquals(pyGetAttr(phone, "network_connection_status"), NetworkStatus.members.NO_SERVICE)) return false;
  if (pyBool(pyGetAttr(around, "is_abroad")) && (!pyBool(pyGetAttr(phone, "roaming_enabled")) || !pyBool(pyGetAttr(around, "roaming_allowed")))) return false;
  if (!pyBool(pyGetAttr(phone, "data_enabled"))) return false;
  if (pyBool(pyGetAttr(around, "mobile_data_usage_exceeded"))) return false;
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
  const details = pyGetAttr(phone, "vpn_details");
  const slowVpn = pyBool(pyGetAttr(phone, "vpn_connected")) && pyBool(details) && pyEquals(pyGetAttr(details, "server_performance"), PerformanceLevel.members.POOR);
  let baseFactor = slowVpn ? 0.1 : 1.0;
  if (pyBool(pyGetAttr(phone, "data_saver_mode"))) baseFactor *= 0.2;
  const [low, high] = lookup(SPEED_RANGE, pyGetAttr(phone, "network_technology_connected"), [0.0, 0.0]);
  const signalFactor = lookup(SIGNAL_FACTOR, pyGetAttr(phone, "network_signal_strength"), 0.0);
  const speed = (pyRound(new PyFloat(((low + high) / 2.0) * signalFactor * baseFactor), 2) as PyFloat).value;
  const description = speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
  return [new PyFloat(speed), description];
}

/** `_can_send_mms`: the value of the original's final `storage and sms` (a bool in practice). */
export function canSendMms(self: Tau2ToolkitInstance): PyValue {
  if (!mobileDataWorking(self)) return false;
  const phone = device(self);
  if (pyEquals(pyGetAttr(phone, "network_technology_connected"), NetworkTechnology.members.TWO_G)) return false;
  if (pyBool(pyGetAttr(phone, "wifi_calling_enabled")) && pyBool(pyGetAttr(phone, "wifi_calling_mms_over_wifi"))) return false;
  if (getPath(phone, "active_apn_settings", "mmsc_url") === null) return false;
  const apps = pyGetAttr(phone, "app_statuses");
  const messaging = pyDictGet(apps, "messaging", null);
  if (messaging === null) return false;
  const storage = getPath(messaging, "permissions", "storage");
  return pyBool(storage) ? getPath(messaging, "permissions", "sms") : storage;
}

/** The status bar's signal label of each strength (`signal_map`). */
function signalLabel(strength: PyValue): string {
  const labels = [
    [SignalStrength.members.NONE, "barSignalNone"],
    [SignalStrength.members.POOR, "barSignalPoor"],
    [SignalStrength.members.FAIR, "barSignalFair"],
    [SignalStrength.members.GOOD, "barSignalGood"],
    [SignalStrength.members.EXCELLENT, "barSignalExcellent"],
  ] as const;
  const match = labels.find(([member]) => pyEquals(member, strength));
  return phoneMessages.text(match ? match[1] : "barSignalUnknown");
}

/** `_check_status_bar`: the indicators joined by ` | ` (raw emoji, as the original returns them). */
export function statusBar(self: Tau2ToolkitInstance): string {
  const phone = device(self);
  const indicators: string[] = [];
  if (pyBool(pyGetAttr(phone, "airplane_mode"))) {
    indicators.push(phoneMessages.text("barAirplane"));
  } else {
    indicators.push(signalLabel(pyGetAttr(phone, "network_signal_strength")));
    const technology = pyGetAttr(phone, "network_technology_connected");
    const hasTechnology = pyNotEquals(technology, NetworkTechnology.members.NONE);
    if (hasTechnology) indicators.push(pyEnumValue(technology));
    if (pyBool(pyGetAttr(phone, "data_enabled")) && hasTechnology) {
      indicators.push(phoneMessages.text("barDataEnabled"));
      if (pyBool(pyGetAttr(phone, "data_saver_mode"))) indicators.push(phoneMessages.text("barDataSaver"));
    } else {
      indicators.push(phoneMessages.text("barDataDisabled"));
    }
  }
  if (pyBool(pyGetAttr(phone, "wifi_enabled")) && pyBool(pyGetAttr(phone, "wifi_connected"))) {
    const ssid = pyGetAttr(phone, "wifi_ssid");
    indicators.push(pyBool(ssid) ? phoneMessages.formatInOrder("barWifiConnectedTo", pyStr(ssid)) : phoneMessages.text("barWifiEnabled"));
  }
  if (pyBool(pyGetAttr(phone, "vpn_connected"))) indicators.push(phoneMessages.text("barVpn"));
  indicators.push(phoneMessages.formatInOrder("barBattery", pyStr(pyGetAttr(phone, "battery_level"))));
  return indicators.join(phoneMessages.text("barSeparator"));
}

/** `_toggle_airplane_mode`: flips airplane mode (turning it on drops Wi-Fi and the VPN), then searches; returns the new state. */
export function toggleAirplaneMode(self: Tau2ToolkitInstance): PyValue {
  const phone = device(self);
  const wasOn = pyGetAttr(phone, "airplane_mode");
  pySetAttr(phone, "airplane_mode", !pyBool(wasOn));
  if (pyBool(wasOn)) {
    pySetAttr(phone, "network_connection_status", NetworkStatus.members.SEARCHING);
    if (pyBool(pyGetAttr(phone, "wifi_enabled"))) dropWifi(phone);
  } else {
    dropWifi(phone);
    if (pyBool(pyGetAttr(phone, "vpn_connected"))) disconnectVpn(self);
  }
  simulateNetworkSearch(self);
  return pyGetAttr(phone, "airplane_mode");
}

/** Wi-Fi disconnected: no SSID, no signal. */
export function dropWifi(phone: PyModel): void {
  pySetAttr(phone, "wifi_connected", false);
  pySetAttr(phone, "wifi_ssid", null);
  pySetAttr(phone, "wifi_signal_strength", SignalStrength.members.NONE);
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
  if (pyBool(pyGetAttr(phone, "vpn_connected"))) return null;
  pySetAttr(phone, "vpn_connected", true);
  pySetAttr(phone, "vpn_details", defaultVpn(self));
  return true;
}

/** `_disconnect_vpn`: false when there was no connection. */
export function disconnectVpn(self: Tau2ToolkitInstance): boolean {
  const phone = device(self);
  if (!pyBool(pyGetAttr(phone, "vpn_connected"))) return false;
  pySetAttr(phone, "vpn_connected", false);
  pySetAttr(phone, "vpn_details", null);
  return true;
}
