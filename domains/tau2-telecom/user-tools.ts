/**
 * The telecom user toolkit (τ² `TelecomUserTools`): what the simulated user can do on their phone,
 * in the order τ² lists the tools, then the setup functions `initialization_actions` call to break
 * the phone and the assertion functions of `env_assertions`. The phone's behaviour is in device.ts.
 */
import { type Tau2ToolkitDefinition, type Tau2ToolkitInstance, tau2Function, tau2Tool } from "../../src/engine/tau2/toolkit.ts";
import {
  PyException,
  PyFloat,
  PyModel,
  type PyValue,
  pyBool,
  pyEquals,
  pyFormatFixed,
  pyGreaterOrEqual,
  pyLower,
  pyModelValidate,
  pyNotEquals,
  pyAttributeError,
  pyDictGet,
  pyEnumCall,
  pyEnumRepr,
  pyEnumValue,
  pyEnumValues,
  pyGetAttr,
  pyRepr,
  pySetAttr,
  pyStr,
} from "../../src/value/index.ts";
import {
  canSendMms,
  connectVpn,
  device,
  disconnectVpn,
  dropWifi,
  getPath,
  mobileDataWorking,
  pyAssert,
  simStatus,
  simulateNetworkSearch,
  speedTest,
  statusBar,
  surroundings,
  toggleAirplaneMode,
} from "./device.ts";
import { APNNames, NetworkModePreference, NetworkStatus, PerformanceLevel, SimStatus, apnSettingsModel, defaultApnSettings } from "./user-data-model.ts";

const onOff = (state: PyValue) => (pyBool(state) ? "ON" : "OFF");
const yesNo = (state: PyValue) => (pyBool(state) ? "Yes" : "No");

/** A tool's answer followed by the status bar, as most user tools report. */
function withStatusBar(self: Tau2ToolkitInstance, message: string): string {
  return `${message}\nStatus Bar: ${statusBar(self)}`;
}

/** Flips a boolean setting of the phone (optionally re-running the network search); returns the new state. */
function toggle(self: Tau2ToolkitInstance, field: string, search: boolean): boolean {
  const phone = device(self);
  const state = !pyBool(pyGetAttr(phone, field));
  pySetAttr(phone, field, state);
  if (search) simulateNetworkSearch(self);
  return state;
}

/** Turns a setting to the wanted state by toggling (once, or twice when the first toggle went the wrong way). */
function turn(self: Tau2ToolkitInstance, field: string, search: boolean, wanted: boolean): void {
  if (toggle(self, field, search) !== wanted) toggle(self, field, search);
}

function turnAirplaneMode(self: Tau2ToolkitInstance, wanted: boolean): void {
  if (pyBool(toggleAirplaneMode(self)) !== wanted) toggleAirplaneMode(self);
}

/** `app_statuses.get(app_name)`. */
function appStatus(self: Tau2ToolkitInstance, appName: PyValue): PyValue {
  return pyDictGet(pyGetAttr(device(self), "app_statuses"), appName);
}

/** The names of granted permissions (`name.replace("_", " ").lower()` of truthy fields). */
function grantedPermissions(permissions: PyValue): string[] {
  if (!(permissions instanceof PyModel)) throw pyAttributeError(permissions, "model_dump");
  return [...permissions].filter(([, allowed]) => pyBool(allowed)).map(([name]) => pyLower(name.replaceAll("_", " ")));
}

/** `model.model_copy(...)`/`model_dump()` need a model. */
function requireModel(value: PyValue, method: string): PyModel {
  if (!(value instanceof PyModel)) throw pyAttributeError(value, method);
  return value;
}

/** `_set_network_mode_preference`: the new preference, or null for an unknown mode (any ValueError). */
function setNetworkModePreference(self: Tau2ToolkitInstance, mode: PyValue): PyValue {
  try {
    const preference = typeof mode === "string" ? pyEnumCall(NetworkModePreference, mode) : mode;
    pySetAttr(device(self), "network_mode_preference", preference);
    simulateNetworkSearch(self);
    return preference;
  } catch (error) {
    if (PyException.isInstance(error) && (error.pythonType === "ValueError" || error.pythonType === "ValidationError")) return null;
    throw error;
  }
}

const SPEED_ADVICE: Readonly<Record<string, string>> = {
  "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
  Poor: "Connection is slow. Web browsing may be sluggish, streaming difficult.",
  Fair: "Connection is okay for web browsing and some standard definition streaming.",
  Good: "Connection is good for most activities, including HD streaming.",
  Excellent: "Connection is very fast.",
};

const SIM_STATUS_TEXT: Readonly<Record<string, string>> = {
  [SimStatus.members.ACTIVE]: "Your SIM card is active and working.",
  [SimStatus.members.MISSING]: "No SIM card detected in the phone.",
  [SimStatus.members.LOCKED_PIN]: "The SIM card is locked with a PIN code.",
  [SimStatus.members.LOCKED_PUK]: "The SIM card is locked with a PUK code.",
};

/** `f"{vpn_details.model_dump()}"`: a dict repr in which the performance prints as an enum member. */
function vpnDetailsRepr(details: PyModel): string {
  const parts = [...details].map(([key, value]) => `${pyRepr(key)}: ${key === "server_performance" ? pyEnumRepr(PerformanceLevel, value) : pyRepr(value)}`);
  return `{${parts.join(", ")}}`;
}

function paymentRequest(self: Tau2ToolkitInstance): PyValue {
  return pyGetAttr(surroundings(self), "payment_request");
}

/**
 * The public attributes every pydantic model has (pydantic 2.12): `hasattr(permissions, name)` is
 * true for them, and assigning one raises `"AppPermissions" object has no field "<name>"`.
 * (Dunder names behave in other ways again; setup functions never pass them.)
 */
const PYDANTIC_MODEL_ATTRIBUTES = new Set([
  "construct",
  "copy",
  "dict",
  "from_orm",
  "json",
  "model_computed_fields",
  "model_config",
  "model_construct",
  "model_copy",
  "model_dump",
  "model_dump_json",
  "model_fields",
  "model_json_schema",
  "model_parametrized_name",
  "model_post_init",
  "model_rebuild",
  "model_validate",
  "model_validate_json",
  "model_validate_strings",
  "parse_file",
  "parse_obj",
  "parse_raw",
  "schema",
  "schema_json",
  "update_forward_refs",
  "validate",
]);

/** `_grant_app_permission` / `remove_app_permission`: `[success, message]`. */
function setPermission(self: Tau2ToolkitInstance, appName: PyValue, permission: PyValue, granted: boolean): [boolean, string] {
  const app = appStatus(self, appName);
  const name = pyLower(permission);
  if (!pyBool(app)) return [false, `App '${pyStr(appName)}' not found. Cannot ${granted ? "grant" : "remove"} permission.`];
  const permissions = pyGetAttr(app, "permissions");
  if (granted) {
    const available = [...requireModel(permissions, "model_dump").keys()];
    if (!available.includes(name)) return [false, `Permission '${name}' not tracked for app '${pyStr(appName)}', available permissions: ${pyRepr(available)}`];
    pySetAttr(permissions, name, true);
    return [true, `Permission '${name}' granted to app '${pyStr(appName)}'.`];
  }
  const isAttribute = permissions instanceof PyModel && (permissions.has(name) || PYDANTIC_MODEL_ATTRIBUTES.has(name));
  if (!isAttribute) return [false, `Permission '${name}' not tracked for app '${pyStr(appName)}'.`];
  pySetAttr(permissions, name, false); // a pydantic method name passes `hasattr` and then fails: no such field
  return [true, `Permission '${name}' removed from app '${pyStr(appName)}'.`];
}

export const telecomUserTools: Tau2ToolkitDefinition = {
  className: "TelecomUserTools",
  methods: [
    tau2Tool("check_status_bar", "read", [], (self) => `Status Bar: ${statusBar(self)}`),
    tau2Tool("check_network_status", "read", [], (self) => {
      const phone = device(self);
      const status = {
        airplane: pyGetAttr(phone, "airplane_mode"),
        sim: simStatus(self),
        connection: pyGetAttr(phone, "network_connection_status"),
        signal: pyGetAttr(phone, "network_signal_strength"),
        technology: pyGetAttr(phone, "network_technology_connected"),
        data: pyGetAttr(phone, "data_enabled"),
        roaming: pyGetAttr(phone, "roaming_enabled"),
        wifiEnabled: pyGetAttr(phone, "wifi_enabled"),
        wifiConnected: pyGetAttr(phone, "wifi_connected"),
        ssid: pyGetAttr(phone, "wifi_ssid"),
      };
      const lines = [
        `Airplane Mode: ${onOff(status.airplane)}`,
        `SIM Card Status: ${pyEnumValue(status.sim)}`,
        `Cellular Connection: ${pyEnumValue(status.connection)}`,
        `Cellular Signal: ${pyEnumValue(status.signal)}`,
        `Cellular Network Type: ${pyEnumValue(status.technology)}`,
        `Mobile Data Enabled: ${yesNo(status.data)}`,
        `Data Roaming Enabled: ${yesNo(status.roaming)}`,
        `Wi-Fi Radio: ${onOff(status.wifiEnabled)}`,
        `Wi-Fi Connected: ${yesNo(status.wifiConnected)}`,
      ];
      if (pyBool(status.wifiConnected)) lines.push(`Connected Wi-Fi Network: ${pyStr(status.ssid)}`);
      return lines.join("\n");
    }),
    tau2Tool("check_network_mode_preference", "read", [], (self) => `Network Mode Preference: ${pyEnumValue(pyGetAttr(device(self), "network_mode_preference"))}`),
    tau2Tool("set_network_mode_preference", "write", ["mode"], (self, { mode }) => {
      const preference = setNetworkModePreference(self, mode);
      if (preference === null) {
        return withStatusBar(self, `Failed to set network mode: '${pyStr(mode)}' is not a valid option. Please use one of: ${pyEnumValues(NetworkModePreference).join(", ")}`);
      }
      return withStatusBar(self, `Preferred Network Mode set to: ${pyEnumValue(preference)}`);
    }),
    tau2Tool("run_speed_test", "read", [], (self) => {
      const [speed, description] = speedTest(self);
      if (speed === null) return `Speed test failed: ${description || "Could not determine speed"}.`;
      return `Speed Test Result: ${pyFormatFixed(speed, 2)} Mbps (${description}). ${SPEED_ADVICE[description] ?? ""}`;
    }),
    tau2Tool("toggle_airplane_mode", "write", [], (self) => withStatusBar(self, `Airplane Mode is now ${onOff(toggleAirplaneMode(self))}.`)),
    tau2Tool("check_sim_status", "read", [], (self) => {
      const status = simStatus(self);
      const fallback = `Unknown SIM status: ${pyEnumValue(status)}`;
      return typeof status === "string" && Object.hasOwn(SIM_STATUS_TEXT, status) ? SIM_STATUS_TEXT[status] : fallback;
    }),
    tau2Tool("reseat_sim_card", "write", [], (self) => {
      pySetAttr(device(self), "sim_card_missing", false);
      simulateNetworkSearch(self);
      pyAssert(!pyBool(pyGetAttr(device(self), "sim_card_missing")));
      pyAssert(pyNotEquals(simStatus(self), SimStatus.members.MISSING));
      return withStatusBar(self, "SIM card re-seated successfully.");
    }),
    tau2Tool("toggle_data", "write", [], (self) => withStatusBar(self, `Mobile Data is now ${onOff(toggle(self, "data_enabled", true))}.`)),
    tau2Tool("toggle_roaming", "write", [], (self) => withStatusBar(self, `Data Roaming is now ${onOff(toggle(self, "roaming_enabled", true))}.`)),
    tau2Tool("check_data_restriction_status", "read", [], (self) => (pyBool(pyGetAttr(device(self), "data_saver_mode")) ? "Data Saver mode is ON (limits data usage)." : "Data Saver mode is OFF.")),
    tau2Tool("toggle_data_saver_mode", "write", [], (self) => withStatusBar(self, `Data Saver Mode is now ${onOff(toggle(self, "data_saver_mode", false))}.`)),
    tau2Tool("check_apn_settings", "read", [], (self) => {
      const settings = requireModel(pyGetAttr(device(self), "active_apn_settings"), "model_copy");
      const apnName = pyEnumValue(pyGetAttr(settings, "apn_name")) || "Not Set";
      const mmscUrl = pyGetAttr(settings, "mmsc_url");
      return `Current APN Name: ${apnName}\nMMSC URL (for picture messages): ${pyBool(mmscUrl) ? pyStr(mmscUrl) : "Not Set"}\n(These are technical settings, usually best left unchanged.)`;
    }),
    tau2Tool("set_apn_settings", "write", ["apn_settings"], (self, { apn_settings }) => {
      const settings = apn_settings instanceof Map && !(apn_settings instanceof PyModel) ? pyModelValidate(apnSettingsModel, apn_settings) : apn_settings;
      pySetAttr(device(self), "active_apn_settings", settings);
      const message = `APN settings set to: ${pyEnumValue(pyGetAttr(settings, "apn_name"))}`;
      simulateNetworkSearch(self);
      return withStatusBar(self, message);
    }),
    tau2Tool("reset_apn_settings", "write", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "reset_at_reboot", true);
      simulateNetworkSearch(self);
      return withStatusBar(self, "APN settings will reset at reboot.");
    }),
    tau2Tool("check_wifi_status", "read", [], (self) => {
      const phone = device(self);
      if (!pyBool(pyGetAttr(phone, "wifi_enabled"))) return "Wi-Fi is turned OFF.";
      if (pyBool(pyGetAttr(phone, "wifi_connected"))) {
        return `Wi-Fi is ON and connected to '${pyStr(pyGetAttr(phone, "wifi_ssid"))}'. Signal strength: ${pyEnumValue(pyGetAttr(phone, "wifi_signal_strength"))}.`;
      }
      return "Wi-Fi is ON but not connected to any network.";
    }),
    tau2Tool("toggle_wifi", "write", [], (self) => {
      const phone = device(self);
      if (pyBool(pyGetAttr(phone, "airplane_mode"))) return withStatusBar(self, "Cannot change Wi-Fi settings while Airplane Mode is ON.");
      const state = toggle(self, "wifi_enabled", false);
      if (!state) dropWifi(phone);
      return withStatusBar(self, `Wi-Fi is now ${onOff(state)}.`);
    }),
    tau2Tool("check_wifi_calling_status", "read", [], (self) => `Wi-Fi Calling is currently turned ${onOff(pyGetAttr(device(self), "wifi_calling_enabled"))}.`),
    tau2Tool("toggle_wifi_calling", "write", [], (self) => withStatusBar(self, `Wi-Fi Calling is now ${onOff(toggle(self, "wifi_calling_enabled", false))}.`)),
    tau2Tool("check_vpn_status", "read", [], (self) => {
      const phone = device(self);
      const enabledSetting = pyGetAttr(phone, "vpn_enabled_setting");
      const connected = pyGetAttr(phone, "vpn_connected");
      const details = pyGetAttr(phone, "vpn_details");
      const dumped = pyBool(details) && pyBool(connected) ? requireModel(details, "model_dump") : null;
      if (pyBool(connected)) {
        return dumped !== null ? `VPN is ON and connected. Details: ${vpnDetailsRepr(dumped)}` : "VPN is ON and connected (no specific details available).";
      }
      return pyBool(enabledSetting) ? "VPN is turned ON in settings, but currently not connected." : "VPN is turned OFF.";
    }),
    tau2Tool("connect_vpn", "write", [], (self) => connectVpnText(self)),
    tau2Tool("disconnect_vpn", "write", [], (self) => withStatusBar(self, disconnectVpn(self) ? "VPN disconnected successfully." : "No active VPN connection to disconnect.")),
    tau2Tool("check_installed_apps", "read", [], (self) => {
      const apps = requireModelOrDict(pyGetAttr(device(self), "app_statuses"));
      return `The following apps are installed on the phone: ${[...apps.keys()].join(", ")}`;
    }),
    tau2Tool("check_app_status", "read", ["app_name"], (self, { app_name }) => {
      const app = appStatus(self, app_name);
      if (!pyBool(app)) return `App '${pyStr(app_name)}' not found on this phone.`;
      const granted = grantedPermissions(pyGetAttr(requireModel(app, "model_copy"), "permissions"));
      const lines = [`Status for App: ${pyStr(app_name)}`];
      if (granted.length === 0) lines.push(" - Permissions: None granted.");
      else lines.push(" - Permissions Granted:", ...granted.map((permission) => `   - ${permission}`));
      return lines.join("\n");
    }),
    tau2Tool("check_app_permissions", "read", ["app_name"], (self, { app_name }) => {
      const app = appStatus(self, app_name);
      if (!pyBool(app)) return `App '${pyStr(app_name)}' not found on this phone.`;
      const granted = grantedPermissions(pyGetAttr(app, "permissions"));
      if (granted.length === 0) return `App '${pyStr(app_name)}' currently has no permissions granted.`;
      return `App '${pyStr(app_name)}' has permission for: ${granted.join(", ")}.`;
    }),
    tau2Tool("grant_app_permission", "write", ["app_name", "permission"], (self, { app_name, permission }) => {
      const [success, message] = setPermission(self, app_name, permission, true);
      return withStatusBar(self, `${success ? "Success. " : "Error. "}${message}`);
    }),
    tau2Tool("can_send_mms", "read", [], (self) => (pyBool(canSendMms(self)) ? "Your messaging app can send MMS messages." : "Your messaging app cannot send MMS messages.")),
    tau2Tool("reboot_device", "write", [], (self) => {
      const phone = device(self);
      const lines: string[] = [];
      if (pyBool(getPath(phone, "active_apn_settings", "reset_at_reboot"))) {
        lines.push("Resetting APN settings...");
        pySetAttr(phone, "active_apn_settings", defaultApnSettings());
      }
      lines.push("Restarting network services...");
      pySetAttr(phone, "network_connection_status", NetworkStatus.members.SEARCHING);
      simulateNetworkSearch(self);
      return withStatusBar(self, lines.join("\n"));
    }),
    tau2Tool("check_payment_request", "read", [], (self) => {
      const request = paymentRequest(self);
      if (request === null) return "No payment request has been made.";
      return `You have a payment request for bill ${pyStr(pyGetAttr(request, "bill_id"))} of ${pyStr(pyGetAttr(request, "amount_due"))} USD.`;
    }),
    tau2Tool("make_payment", "write", [], (self) => {
      const request = paymentRequest(self);
      if (request === null) return "You do not have a payment request.";
      pySetAttr(request, "paid", true);
      return `Payment of ${pyStr(pyGetAttr(request, "amount_due"))} USD has been made for bill ${pyStr(pyGetAttr(request, "bill_id"))}.`;
    }),

    // --- setup functions (initialization_actions) ---
    tau2Function("set_user_info", ["name", "phone_number"], (self, { name, phone_number }) => {
      pySetAttr(surroundings(self), "name", name);
      pySetAttr(surroundings(self), "phone_number", phone_number);
      return null;
    }),
    tau2Function("set_user_location", ["abroad"], (self, { abroad }) => {
      pySetAttr(surroundings(self), "is_abroad", abroad);
      return null;
    }),
    tau2Function("turn_airplane_mode_on", [], (self) => {
      turnAirplaneMode(self, true);
      return "Airplane Mode is now ON.";
    }),
    tau2Function("turn_airplane_mode_off", [], (self) => {
      turnAirplaneMode(self, false);
      return "Airplane Mode is now OFF.";
    }),
    tau2Function("unseat_sim_card", [], (self) => {
      pySetAttr(device(self), "sim_card_missing", true);
      simulateNetworkSearch(self);
      pyAssert(pyBool(pyGetAttr(device(self), "sim_card_missing")));
      pyAssert(pyEquals(simStatus(self), SimStatus.members.MISSING));
      return "SIM card un-seated successfully.";
    }),
    tau2Function("lock_sim_card", ["mode"], (self, { mode }) => {
      const locked = pyEquals(mode, "pin") ? SimStatus.members.LOCKED_PIN : pyEquals(mode, "puk") ? SimStatus.members.LOCKED_PUK : null;
      if (locked !== null) pySetAttr(device(self), "sim_card_status", locked);
      simulateNetworkSearch(self);
      if (locked !== null) pyAssert(pyEquals(pyGetAttr(device(self), "sim_card_status"), locked));
      return `SIM card locked successfully in ${pyStr(mode)} mode.`;
    }),
    tau2Function("turn_data_on", [], (self) => {
      pySetAttr(device(self), "data_enabled", true);
      return "Data connection restored.";
    }),
    tau2Function("turn_data_off", [], (self) => {
      turn(self, "data_enabled", true, false);
      return "Data connection broken.";
    }),
    tau2Function("turn_roaming_on", [], (self) => {
      turn(self, "roaming_enabled", true, true);
      return "Data Roaming is now ON.";
    }),
    tau2Function("turn_roaming_off", [], (self) => {
      turn(self, "roaming_enabled", true, false);
      return "Data Roaming is now OFF.";
    }),
    tau2Function("turn_data_saver_mode_on", [], (self) => {
      turn(self, "data_saver_mode", false, true);
      return "Data Saver Mode is now ON.";
    }),
    tau2Function("turn_data_saver_mode_off", [], (self) => {
      turn(self, "data_saver_mode", false, false);
      return "Data Saver Mode is now OFF.";
    }),
    tau2Function("break_apn_settings", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "apn_name", APNNames.members.BROKEN);
      simulateNetworkSearch(self);
      pyAssert(pyEquals(pyGetAttr(device(self), "network_connection_status"), NetworkStatus.members.NO_SERVICE));
      return "APN settings broken. Please call reset_apn_settings() to fix.";
    }),
    tau2Function("break_apn_mms_setting", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "mmsc_url", null);
      pyAssert(!pyBool(canSendMms(self)));
      return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
    }),
    tau2Function("set_wifi_calling", ["enabled", ["mms_over_wifi", null]], (self, { enabled, mms_over_wifi }) => {
      if (pyNotEquals(pyGetAttr(device(self), "wifi_calling_enabled"), enabled)) toggle(self, "wifi_calling_enabled", false);
      let message = `Wi-Fi Calling is now ${onOff(enabled)}.`;
      if (mms_over_wifi !== null) {
        pySetAttr(device(self), "wifi_calling_mms_over_wifi", mms_over_wifi);
        message += `\nMMS over Wi-Fi is now ${onOff(mms_over_wifi)}.`;
      }
      return message;
    }),
    tau2Function("break_vpn", [], (self) => {
      connectVpnText(self);
      pySetAttr(pyGetAttr(device(self), "vpn_details"), "server_performance", PerformanceLevel.members.POOR);
      return "VPN connection broken.";
    }),
    tau2Function("remove_app_permission", ["app_name", "permission"], (self, { app_name, permission }) => setPermission(self, app_name, permission, false)),
    tau2Function("simulate_network_search", [], (self) => {
      simulateNetworkSearch(self);
      return null;
    }),

    // --- assertion functions (env_assertions) ---
    tau2Function("assert_airplane_mode_status", ["expected_status"], (self, { expected_status }) => pyEquals(pyGetAttr(device(self), "airplane_mode"), expected_status)),
    tau2Function("assert_service_status", ["expected_status"], (self, { expected_status }) =>
      pyEquals(pyGetAttr(device(self), "network_connection_status"), pyEnumCall(NetworkStatus, expected_status)),
    ),
    tau2Function("assert_mobile_data_status", ["expected_status"], (self, { expected_status }) => pyEquals(mobileDataWorking(self), expected_status)),
    tau2Function("assert_mobile_roaming_status", ["expected_status"], (self, { expected_status }) => pyEquals(pyGetAttr(device(self), "roaming_enabled"), expected_status)),
    tau2Function("assert_mobile_data_saver_mode_status", ["expected_status"], (self, { expected_status }) => pyEquals(pyGetAttr(device(self), "data_saver_mode"), expected_status)),
    tau2Function("assert_internet_speed", ["expected_speed", ["expected_desc", null]], (self, { expected_speed, expected_desc }) => {
      const [measured, description] = speedTest(self);
      const speed = measured !== null && pyBool(measured) ? measured : new PyFloat(0);
      if (expected_desc === null) return pyGreaterOrEqual(speed, expected_speed);
      return pyGreaterOrEqual(speed, expected_speed) && pyLower(description) === pyLower(expected_desc);
    }),
    tau2Function("assert_internet_not_excellent", [], (self) => pyLower(speedTest(self)[1]) !== "excellent"),
    tau2Function("assert_can_send_mms", ["expected_status"], (self, { expected_status }) => pyEquals(canSendMms(self), expected_status)),
    tau2Function("assert_mobile_data_usage_exceeded", ["expected_status"], (self, { expected_status }) => pyEquals(pyGetAttr(surroundings(self), "mobile_data_usage_exceeded"), expected_status)),
  ],
};

/** The `connect_vpn` tool's text (`break_vpn` calls the tool itself, status bar included). */
function connectVpnText(self: Tau2ToolkitInstance): string {
  const connected = connectVpn(self);
  if (connected === null) return "VPN already connected.";
  return withStatusBar(self, connected ? "VPN connected successfully." : "No VPN connection to connect.");
}

function requireModelOrDict(value: PyValue): Map<string, PyValue> {
  if (!(value instanceof Map) || value instanceof PyModel) throw pyAttributeError(value, "keys");
  return value;
}
