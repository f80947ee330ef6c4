/**
 * The telecom user toolkit (τ² `TelecomUserTools`): what the simulated user can do on their phone,
 * in the order τ² lists the tools, then the setup functions `initialization_actions` call to break
 * the phone and the assertion functions of `env_assertions`. The phone's behaviour is in device.ts.
 */
import { phoneMessages } from "./user-messages.ts";
import { type Tau2ToolkitDefinition, type Tau2ToolkitInstance, tau2Function, tau2Tool } from "../../src/suites/tau2/engine/toolkit.ts";
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
  return phoneMessages.formatInOrder("withStatusBar", message, statusBar(self));
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

/** `run_speed_test`'s advice for a speed description (none for a description it does not list). */
function speedAdvice(description: string): string {
  const pairs = [
    ["speedVeryPoor", "adviceVeryPoor"],
    ["speedPoor", "advicePoor"],
    ["speedFair", "adviceFair"],
    ["speedGood", "adviceGood"],
    ["speedExcellent", "adviceExcellent"],
  ] as const;
  const match = pairs.find(([speed]) => phoneMessages.text(speed) === description);
  return match ? phoneMessages.text(match[1]) : "";
}

/** `check_sim_status`' sentence for each SIM status it lists. */
function simStatusText(status: PyValue): string | undefined {
  const texts = [
    [SimStatus.members.ACTIVE, "simActive"],
    [SimStatus.members.MISSING, "simMissing"],
    [SimStatus.members.LOCKED_PIN, "simLockedPin"],
    [SimStatus.members.LOCKED_PUK, "simLockedPuk"],
  ] as const;
  const match = texts.find(([member]) => member === status);
  return match ? phoneMessages.text(match[1]) : undefined;
}

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
  if (!pyBool(app)) return [false, phoneMessages.format(granted ? "grantAppNotFound" : "removeAppNotFound", { app_name: pyStr(appName) })];
  const permissions = pyGetAttr(app, "permissions");
  if (granted) {
    const available = [...requireModel(permissions, "model_dump").keys()];
    if (!available.includes(name)) return [false, phoneMessages.format("permissionNotTrackedListing", { permission: name, app_name: pyStr(appName), available_permissions: pyRepr(available) })];
    pySetAttr(permissions, name, true);
    return [true, phoneMessages.format("permissionGranted", { permission: name, app_name: pyStr(appName) })];
  }
  const isAttribute = permissions instanceof PyModel && (permissions.has(name) || PYDANTIC_MODEL_ATTRIBUTES.has(name));
  if (!isAttribute) return [false, phoneMessages.format("permissionNotTracked", { permission: name, app_name: pyStr(appName) })];
  pySetAttr(permissions, name, false); // a pydantic method name passes `hasattr` and then fails: no such field
  return [true, phoneMessages.format("permissionRemoved", { permission: name, app_name: pyStr(appName) })];
}

export const telecomUserTools: Tau2ToolkitDefinition = {
  className: "TelecomUserTools",
  methods: [
    tau2Tool("check_status_bar", "read", [], (self) => phoneMessages.formatInOrder("statusBar", statusBar(self))),
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
        phoneMessages.formatInOrder("networkAirplane", onOff(status.airplane)),
        phoneMessages.formatInOrder("networkSim", pyEnumValue(status.sim)),
        phoneMessages.formatInOrder("networkConnection", pyEnumValue(status.connection)),
        phoneMessages.formatInOrder("networkSignal", pyEnumValue(status.signal)),
        phoneMessages.formatInOrder("networkTechnology", pyEnumValue(status.technology)),
        phoneMessages.formatInOrder("networkMobileData", yesNo(status.data)),
        phoneMessages.formatInOrder("networkRoaming", yesNo(status.roaming)),
        phoneMessages.formatInOrder("networkWifiRadio", onOff(status.wifiEnabled)),
        phoneMessages.formatInOrder("networkWifiConnected", yesNo(status.wifiConnected)),
      ];
      if (pyBool(status.wifiConnected)) lines.push(phoneMessages.formatInOrder("networkWifiName", pyStr(status.ssid)));
      return lines.join("\n");
    }),
    tau2Tool("check_network_mode_preference", "read", [], (self) => phoneMessages.formatInOrder("modePreference", pyEnumValue(pyGetAttr(device(self), "network_mode_preference")))),
    tau2Tool("set_network_mode_preference", "write", ["mode"], (self, { mode }) => {
      const preference = setNetworkModePreference(self, mode);
      if (preference === null) {
        return phoneMessages.formatInOrder("modeRefused", pyStr(mode), pyEnumValues(NetworkModePreference).join(", "), statusBar(self));
      }
      return withStatusBar(self, phoneMessages.formatInOrder("modeSet", pyEnumValue(preference)));
    }),
    tau2Tool("run_speed_test", "read", [], (self) => {
      const [speed, description] = speedTest(self);
      // The original's `description or …` fallback never applies: a failed test always says why.
      if (speed === null) return phoneMessages.formatInOrder("speedTestFailed", description);
      return phoneMessages.formatInOrder("speedTestResult", pyFormatFixed(speed, 2), description, speedAdvice(description));
    }),
    tau2Tool("toggle_airplane_mode", "write", [], (self) => withStatusBar(self, phoneMessages.formatInOrder("airplaneToggled", onOff(toggleAirplaneMode(self))))),
    tau2Tool("check_sim_status", "read", [], (self) => {
      const status = simStatus(self);
      return simStatusText(status) ?? phoneMessages.formatInOrder("simUnknown", pyEnumValue(status));
    }),
    tau2Tool("reseat_sim_card", "write", [], (self) => {
      pySetAttr(device(self), "sim_card_missing", false);
      simulateNetworkSearch(self);
      pyAssert(!pyBool(pyGetAttr(device(self), "sim_card_missing")));
      pyAssert(pyNotEquals(simStatus(self), SimStatus.members.MISSING));
      return withStatusBar(self, phoneMessages.text("simReseated"));
    }),
    tau2Tool("toggle_data", "write", [], (self) => withStatusBar(self, phoneMessages.formatInOrder("dataToggled", onOff(toggle(self, "data_enabled", true))))),
    tau2Tool("toggle_roaming", "write", [], (self) => withStatusBar(self, phoneMessages.formatInOrder("roamingToggled", onOff(toggle(self, "roaming_enabled", true))))),
    tau2Tool("check_data_restriction_status", "read", [], (self) => phoneMessages.text(pyBool(pyGetAttr(device(self), "data_saver_mode")) ? "dataSaverIsOn" : "dataSaverIsOff")),
    tau2Tool("toggle_data_saver_mode", "write", [], (self) => withStatusBar(self, phoneMessages.formatInOrder("dataSaverToggled", onOff(toggle(self, "data_saver_mode", false))))),
    tau2Tool("check_apn_settings", "read", [], (self) => {
      const settings = requireModel(pyGetAttr(device(self), "active_apn_settings"), "model_copy");
      const apnName = pyEnumValue(pyGetAttr(settings, "apn_name")) || phoneMessages.text("apnNotSet");
      const mmscUrl = pyGetAttr(settings, "mmsc_url");
      return phoneMessages.formatInOrder("apnSettings", apnName, pyBool(mmscUrl) ? pyStr(mmscUrl) : phoneMessages.text("apnNotSet"));
    }),
    tau2Tool("set_apn_settings", "write", ["apn_settings"], (self, { apn_settings }) => {
      const settings = apn_settings instanceof Map && !(apn_settings instanceof PyModel) ? pyModelValidate(apnSettingsModel, apn_settings) : apn_settings;
      pySetAttr(device(self), "active_apn_settings", settings);
      const message = phoneMessages.formatInOrder("apnSet", pyEnumValue(pyGetAttr(settings, "apn_name")));
      simulateNetworkSearch(self);
      return withStatusBar(self, message);
    }),
    tau2Tool("reset_apn_settings", "write", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "reset_at_reboot", true);
      simulateNetworkSearch(self);
      return withStatusBar(self, phoneMessages.text("apnResetAtReboot"));
    }),
    tau2Tool("check_wifi_status", "read", [], (self) => {
      const phone = device(self);
      if (!pyBool(pyGetAttr(phone, "wifi_enabled"))) return phoneMessages.text("wifiOff");
      if (pyBool(pyGetAttr(phone, "wifi_connected"))) {
        return phoneMessages.formatInOrder("wifiConnected", pyStr(pyGetAttr(phone, "wifi_ssid")), pyEnumValue(pyGetAttr(phone, "wifi_signal_strength")));
      }
      return phoneMessages.text("wifiNotConnected");
    }),
    tau2Tool("toggle_wifi", "write", [], (self) => {
      const phone = device(self);
      if (pyBool(pyGetAttr(phone, "airplane_mode"))) return phoneMessages.formatInOrder("wifiLockedByAirplane", statusBar(self));
      const state = toggle(self, "wifi_enabled", false);
      if (!state) dropWifi(phone);
      return withStatusBar(self, phoneMessages.formatInOrder("wifiToggled", onOff(state)));
    }),
    tau2Tool("check_wifi_calling_status", "read", [], (self) => phoneMessages.formatInOrder("wifiCallingState", onOff(pyGetAttr(device(self), "wifi_calling_enabled")))),
    tau2Tool("toggle_wifi_calling", "write", [], (self) => withStatusBar(self, phoneMessages.formatInOrder("wifiCallingToggled", onOff(toggle(self, "wifi_calling_enabled", false))))),
    tau2Tool("check_vpn_status", "read", [], (self) => {
      const phone = device(self);
      const enabledSetting = pyGetAttr(phone, "vpn_enabled_setting");
      const connected = pyGetAttr(phone, "vpn_connected");
      const details = pyGetAttr(phone, "vpn_details");
      const dumped = pyBool(details) && pyBool(connected) ? requireModel(details, "model_dump") : null;
      if (pyBool(connected)) {
        return dumped !== null ? phoneMessages.formatInOrder("vpnDetails", vpnDetailsRepr(dumped)) : phoneMessages.text("vpnNoDetails");
      }
      return phoneMessages.text(pyBool(enabledSetting) ? "vpnEnabledNotConnected" : "vpnOff");
    }),
    tau2Tool("connect_vpn", "write", [], (self) => connectVpnText(self)),
    tau2Tool("disconnect_vpn", "write", [], (self) => withStatusBar(self, phoneMessages.text(disconnectVpn(self) ? "vpnDisconnected" : "vpnNothingToDisconnect"))),
    tau2Tool("check_installed_apps", "read", [], (self) => {
      const apps = requireModelOrDict(pyGetAttr(device(self), "app_statuses"));
      return phoneMessages.formatInOrder("appsInstalled", [...apps.keys()].join(", "));
    }),
    tau2Tool("check_app_status", "read", ["app_name"], (self, { app_name }) => {
      const app = appStatus(self, app_name);
      if (!pyBool(app)) return phoneMessages.format("appNotFound", { app_name: pyStr(app_name) });
      const granted = grantedPermissions(pyGetAttr(requireModel(app, "model_copy"), "permissions"));
      const lines = [phoneMessages.format("appStatus", { app_name: pyStr(app_name) })];
      if (granted.length === 0) lines.push(phoneMessages.text("appNoPermissions"));
      else lines.push(phoneMessages.text("appPermissionsHeader"), ...granted.map((permission) => phoneMessages.format("appPermissionLine", { perm: permission })));
      return lines.join("\n");
    }),
    tau2Tool("check_app_permissions", "read", ["app_name"], (self, { app_name }) => {
      const app = appStatus(self, app_name);
      if (!pyBool(app)) return phoneMessages.format("appNotFound", { app_name: pyStr(app_name) });
      const granted = grantedPermissions(pyGetAttr(app, "permissions"));
      if (granted.length === 0) return phoneMessages.format("appHasNoPermissions", { app_name: pyStr(app_name) });
      return phoneMessages.formatInOrder("appHasPermissions", pyStr(app_name), granted.join(", "));
    }),
    tau2Tool("grant_app_permission", "write", ["app_name", "permission"], (self, { app_name, permission }) => {
      const [success, message] = setPermission(self, app_name, permission, true);
      return withStatusBar(self, `${phoneMessages.text(success ? "grantSucceeded" : "grantFailed")}${message}`);
    }),
    tau2Tool("can_send_mms", "read", [], (self) => phoneMessages.text(pyBool(canSendMms(self)) ? "mmsWorks" : "mmsFails")),
    tau2Tool("reboot_device", "write", [], (self) => {
      const phone = device(self);
      const lines: string[] = [];
      if (pyBool(getPath(phone, "active_apn_settings", "reset_at_reboot"))) {
        lines.push(phoneMessages.text("rebootResettingApn"));
        pySetAttr(phone, "active_apn_settings", defaultApnSettings());
      }
      lines.push(phoneMessages.text("rebootRestarting"));
      pySetAttr(phone, "network_connection_status", NetworkStatus.members.SEARCHING);
      simulateNetworkSearch(self);
      return withStatusBar(self, lines.join("\n"));
    }),
    tau2Tool("check_payment_request", "read", [], (self) => {
      const request = paymentRequest(self);
      if (request === null) return phoneMessages.text("noPaymentRequest");
      return phoneMessages.formatInOrder("paymentRequested", pyStr(pyGetAttr(request, "bill_id")), pyStr(pyGetAttr(request, "amount_due")));
    }),
    tau2Tool("make_payment", "write", [], (self) => {
      const request = paymentRequest(self);
      if (request === null) return phoneMessages.text("nothingToPay");
      pySetAttr(request, "paid", true);
      return phoneMessages.formatInOrder("paymentMade", pyStr(pyGetAttr(request, "amount_due")), pyStr(pyGetAttr(request, "bill_id")));
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
      return phoneMessages.text("airplaneOn");
    }),
    tau2Function("turn_airplane_mode_off", [], (self) => {
      turnAirplaneMode(self, false);
      return phoneMessages.text("airplaneOff");
    }),
    tau2Function("unseat_sim_card", [], (self) => {
      pySetAttr(device(self), "sim_card_missing", true);
      simulateNetworkSearch(self);
      pyAssert(pyBool(pyGetAttr(device(self), "sim_card_missing")));
      pyAssert(pyEquals(simStatus(self), SimStatus.members.MISSING));
      return phoneMessages.text("simUnseated");
    }),
    tau2Function("lock_sim_card", ["mode"], (self, { mode }) => {
      const locked = pyEquals(mode, "pin") ? SimStatus.members.LOCKED_PIN : pyEquals(mode, "puk") ? SimStatus.members.LOCKED_PUK : null;
      if (locked !== null) pySetAttr(device(self), "sim_card_status", locked);
      simulateNetworkSearch(self);
      if (locked !== null) pyAssert(pyEquals(pyGetAttr(device(self), "sim_card_status"), locked));
      return phoneMessages.format("simLocked", { mode: pyStr(mode) });
    }),
    tau2Function("turn_data_on", [], (self) => {
      pySetAttr(device(self), "data_enabled", true);
      return phoneMessages.text("dataOn");
    }),
    tau2Function("turn_data_off", [], (self) => {
      turn(self, "data_enabled", true, false);
      return phoneMessages.text("dataOff");
    }),
    tau2Function("turn_roaming_on", [], (self) => {
      turn(self, "roaming_enabled", true, true);
      return phoneMessages.text("roamingOn");
    }),
    tau2Function("turn_roaming_off", [], (self) => {
      turn(self, "roaming_enabled", true, false);
      return phoneMessages.text("roamingOff");
    }),
    tau2Function("turn_data_saver_mode_on", [], (self) => {
      turn(self, "data_saver_mode", false, true);
      return phoneMessages.text("dataSaverOn");
    }),
    tau2Function("turn_data_saver_mode_off", [], (self) => {
      turn(self, "data_saver_mode", false, false);
      return phoneMessages.text("dataSaverOff");
    }),
    tau2Function("break_apn_settings", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "apn_name", APNNames.members.BROKEN);
      simulateNetworkSearch(self);
      pyAssert(pyEquals(pyGetAttr(device(self), "network_connection_status"), NetworkStatus.members.NO_SERVICE));
      return phoneMessages.text("apnBroken");
    }),
    tau2Function("break_apn_mms_setting", [], (self) => {
      pySetAttr(pyGetAttr(device(self), "active_apn_settings"), "mmsc_url", null);
      pyAssert(!pyBool(canSendMms(self)));
      return phoneMessages.text("apnMmsBroken");
    }),
    tau2Function("set_wifi_calling", ["enabled", ["mms_over_wifi", null]], (self, { enabled, mms_over_wifi }) => {
      if (pyNotEquals(pyGetAttr(device(self), "wifi_calling_enabled"), enabled)) toggle(self, "wifi_calling_enabled", false);
      let message = phoneMessages.formatInOrder("wifiCallingSet", onOff(enabled));
      if (mms_over_wifi !== null) {
        pySetAttr(device(self), "wifi_calling_mms_over_wifi", mms_over_wifi);
        message += phoneMessages.formatInOrder("mmsOverWifiSet", onOff(mms_over_wifi));
      }
      return message;
    }),
    tau2Function("break_vpn", [], (self) => {
      connectVpnText(self);
      pySetAttr(pyGetAttr(device(self), "vpn_details"), "server_performance", PerformanceLevel.members.POOR);
      return phoneMessages.text("vpnBroken");
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
  if (connected === null) return phoneMessages.text("vpnAlreadyConnected");
  return withStatusBar(self, phoneMessages.text(connected ? "vpnConnected" : "vpnNothingToConnect"));
}

function requireModelOrDict(value: PyValue): Map<string, PyValue> {
  if (!(value instanceof Map) || value instanceof PyModel) throw pyAttributeError(value, "keys");
  return value;
}
