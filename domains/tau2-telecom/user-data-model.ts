/**
 * The telecom user database's models (τ² `domains/telecom/user_data_model.py`): the user's phone
 * (`MockPhoneAttributes`) and surroundings, in the original's field order with its types and
 * defaults. Every model forbids extra keys (`BaseModelNoExtra`).
 */
import { type PyDict, type PyModelSchema, type PyValue, pyModelSchema, pyModelValidate, pyStrEnum, pyT } from "../../src/value/index.ts";

export const SimStatus = pyStrEnum("SimStatus", { ACTIVE: "active", MISSING: "missing", LOCKED_PIN: "locked_pin", LOCKED_PUK: "locked_puk" });
export const NetworkTechnology = pyStrEnum("NetworkTechnology", { NONE: "none", TWO_G: "2G", THREE_G: "3G", FOUR_G: "4G", FIVE_G: "5G" });
export const NetworkModePreference = pyStrEnum("NetworkModePreference", {
  FOUR_G_5G_PREFERRED: "4g_5g_preferred",
  FOUR_G_ONLY: "4g_only",
  THREE_G_ONLY: "3g_only",
  TWO_G_ONLY: "2g_only",
});
export const SignalStrength = pyStrEnum("SignalStrength", { NONE: "none", POOR: "poor", FAIR: "fair", GOOD: "good", EXCELLENT: "excellent" });
export const PerformanceLevel = pyStrEnum("PerformanceLevel", { UNKNOWN: "unknown", POOR: "poor", FAIR: "fair", GOOD: "good", EXCELLENT: "excellent" });
export const NetworkStatus = pyStrEnum("NetworkStatus", { CONNECTED: "connected", SEARCHING: "searching", NO_SERVICE: "no_service", EMERGENCY_ONLY: "emergency_only" });
export const APNNames = pyStrEnum("APNNames", { INTERNET: "internet", BROKEN: "broken" });

/** A model instance from keyword arguments (`Model(**kwargs)`), for defaults and factories. */
function build(schema: () => PyModelSchema, fields: Array<[string, PyValue]> = []): PyValue {
  return pyModelValidate(schema(), new Map(fields) as PyDict);
}

export const apnSettingsModel: PyModelSchema = pyModelSchema(
  "APNSettings",
  [
    ["apn_name", APNNames.type, () => APNNames.members.INTERNET],
    ["reset_at_reboot", pyT.bool, () => false],
    ["mms_apn", pyT.optional(pyT.str), () => "mms"],
    ["mmsc_url", pyT.optional(pyT.str), () => "http://mms.carrier.com/mms/wapenc"],
    ["mms_proxy", pyT.optional(pyT.str), () => null],
    ["mms_port", pyT.optional(pyT.int), () => null],
  ],
  "forbid",
);

export const vpnDetailsModel: PyModelSchema = pyModelSchema(
  "VpnDetails",
  [
    ["server_address", pyT.optional(pyT.str), () => null],
    ["protocol", pyT.optional(pyT.str), () => null],
    ["server_performance", PerformanceLevel.type, () => PerformanceLevel.members.UNKNOWN],
  ],
  "forbid",
);

export const appPermissionsModel: PyModelSchema = pyModelSchema(
  "AppPermissions",
  [
    ["sms", pyT.bool, () => false],
    ["storage", pyT.bool, () => false],
    ["phone", pyT.bool, () => false],
    ["network", pyT.bool, () => false],
  ],
  "forbid",
);

export const appStatusModel: PyModelSchema = pyModelSchema(
  "AppStatus",
  [
    ["app_name", pyT.str],
    ["permissions", pyT.model(() => appPermissionsModel), () => build(() => appPermissionsModel)],
  ],
  "forbid",
);

/** Defined by the original but not part of either database. */
export const statusBarModel: PyModelSchema = pyModelSchema(
  "StatusBar",
  [
    ["signal_strength", SignalStrength.type, () => SignalStrength.members.NONE],
    ["network_type", NetworkTechnology.type, () => NetworkTechnology.members.NONE],
    ["wifi_connected", pyT.bool, () => false],
    ["airplane_mode", pyT.bool, () => false],
    ["vpn_active", pyT.bool, () => false],
    ["data_saver_active", pyT.bool, () => false],
    ["battery_level", pyT.int, () => 100],
  ],
  "forbid",
);

function defaultAppStatuses(): PyDict {
  const app = (name: string, permissions: Array<[string, PyValue]>) =>
    build(
      () => appStatusModel,
      [
        ["app_name", name],
        ["permissions", build(() => appPermissionsModel, permissions)],
      ],
    );
  return new Map([
    [
      "messaging",
      app("messaging", [
        ["sms", true],
        ["storage", true],
        ["phone", true],
      ]),
    ],
    [
      "browser",
      app("browser", [
        ["network", true],
        ["storage", true],
      ]),
    ],
  ]);
}

export const mockPhoneAttributesModel: PyModelSchema = pyModelSchema(
  "MockPhoneAttributes",
  [
    ["sim_card_status", SimStatus.type, () => SimStatus.members.ACTIVE],
    ["sim_card_missing", pyT.bool, () => false],
    ["airplane_mode", pyT.bool, () => false],
    ["network_signal_strength", SignalStrength.type, () => SignalStrength.members.GOOD],
    ["network_technology_connected", NetworkTechnology.type, () => NetworkTechnology.members.FIVE_G],
    ["network_connection_status", NetworkStatus.type, () => NetworkStatus.members.CONNECTED],
    ["battery_level", pyT.int, () => 80],
    ["data_enabled", pyT.bool, () => true],
    ["roaming_enabled", pyT.bool, () => false],
    ["network_mode_preference", NetworkModePreference.type, () => NetworkModePreference.members.FOUR_G_5G_PREFERRED],
    ["active_apn_settings", pyT.model(() => apnSettingsModel), () => build(() => apnSettingsModel)],
    ["wifi_enabled", pyT.bool, () => false],
    ["wifi_connected", pyT.bool, () => false],
    ["wifi_ssid", pyT.optional(pyT.str), () => null],
    ["wifi_signal_strength", SignalStrength.type, () => SignalStrength.members.NONE],
    ["wifi_calling_enabled", pyT.bool, () => false],
    ["wifi_calling_mms_over_wifi", pyT.bool, () => false],
    ["data_saver_mode", pyT.bool, () => false],
    ["vpn_enabled_setting", pyT.bool, () => false],
    ["vpn_connected", pyT.bool, () => false],
    ["vpn_details", pyT.optional(pyT.model(() => vpnDetailsModel)), () => null],
    ["app_statuses", pyT.dict(pyT.model(() => appStatusModel)), defaultAppStatuses],
  ],
  "forbid",
);

export const paymentRequestModel: PyModelSchema = pyModelSchema(
  "PaymentRequest",
  [
    ["bill_id", pyT.str],
    ["amount_due", pyT.float],
    ["paid", pyT.bool, () => false],
  ],
  "forbid",
);

/**
 * `signal_strength` is a `dict[NetworkTechnology, SignalStrength]`; its keys are held as the
 * members' values (what they dump as). Key validation is not modelled: only the default is ever used.
 */
export const userSurroundingsModel: PyModelSchema = pyModelSchema(
  "UserSurroundings",
  [
    ["name", pyT.optional(pyT.str), () => null],
    ["phone_number", pyT.optional(pyT.str), () => null],
    ["is_abroad", pyT.bool, () => false],
    ["roaming_allowed", pyT.bool, () => false],
    [
      "signal_strength",
      pyT.dict(SignalStrength.type),
      () =>
        new Map([
          [NetworkTechnology.members.TWO_G, SignalStrength.members.POOR],
          [NetworkTechnology.members.THREE_G, SignalStrength.members.FAIR],
          [NetworkTechnology.members.FOUR_G, SignalStrength.members.GOOD],
          [NetworkTechnology.members.FIVE_G, SignalStrength.members.EXCELLENT],
        ]),
    ],
    ["mobile_data_usage_exceeded", pyT.bool, () => false],
    ["line_active", pyT.bool, () => true],
    ["payment_request", pyT.optional(pyT.model(() => paymentRequestModel)), () => null],
  ],
  "forbid",
);

export const telecomUserDbModel: PyModelSchema = pyModelSchema(
  "TelecomUserDB",
  [
    ["device", pyT.model(() => mockPhoneAttributesModel), () => build(() => mockPhoneAttributesModel)],
    ["surroundings", pyT.model(() => userSurroundingsModel), () => build(() => userSurroundingsModel)],
  ],
  "forbid",
);

/** A fresh `APNSettings()` (what a reboot installs after `reset_apn_settings`). */
export function defaultApnSettings(): PyValue {
  return build(() => apnSettingsModel);
}
