/**
 * Headless Chromium for the viewer's tests: Debian's `chromium` (which `.ci/run` installs when it is
 * absent) driven by playwright-core. Tests skip with {@link missingBrowserReason} without it.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** The Chromium executable: `TAUBRIDGE_CHROMIUM`, else Debian's. */
export const chromiumPath: string | undefined = [process.env.TAUBRIDGE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (path): path is string => Boolean(path) && existsSync(path as string),
);

export const missingBrowserReason = "skipped: no Chromium (/usr/bin/chromium; set TAUBRIDGE_CHROMIUM, or run .ci/run, which installs Debian's chromium as root)";

/** The flags this machine needs (no sandbox as root in a container, no GPU, no background traffic). */
export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath as string, args: CHROMIUM_FLAGS });
}
