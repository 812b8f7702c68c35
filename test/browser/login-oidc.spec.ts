/**
 * Single sign-on by OpenID Connect in a browser: the login page's button goes to a real
 * provider (oidc-provider, started here) and back, and the Console is logged in as the
 * user the provider named. The page offers the code form too, as development does.
 */
import { expect, test as base } from "@playwright/test";
import { startTestProvider, type TestProvider } from "../console/support/oidc-test-provider.ts";
import { freePort, startConsoleServer, type ConsoleServer } from "./console-fixture.ts";

const test = base.extend<object, { sso: { server: ConsoleServer; provider: TestProvider } }>({
  sso: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const port = await freePort();
      const callback = `http://127.0.0.1:${port}/console/api/auth/oidc/callback`;
      const provider = await startTestProvider(callback);
      const server = await startConsoleServer({
        ADDR: `127.0.0.1:${port}`,
        WF_CONSOLE_OIDC_ISSUER: provider.issuer,
        WF_CONSOLE_OIDC_CLIENT_ID: provider.clientId,
        WF_CONSOLE_OIDC_CLIENT_SECRET: provider.clientSecret,
        WF_CONSOLE_OIDC_REDIRECT_URL: callback,
        WF_CONSOLE_OIDC_USER_CLAIM: "preferred_username",
        WF_CONSOLE_OIDC_SCOPES: "openid profile",
      });
      await use({ server, provider });
      await server.stop();
      await provider.close();
    },
    { scope: "worker" },
  ],
});

test("'Log in with single sign-on' logs in the user the provider names", async ({ page, sso }) => {
  sso.provider.nextUser = "olga";
  await page.goto(`${sso.server.url}/console/`);
  await expect(page.getByLabel("User id", { exact: true })).toBeVisible();
  await page.getByRole("link", { name: "Log in with single sign-on" }).click();
  await expect(page.getByRole("button", { name: "Log out" })).toBeVisible();
  await expect(page.getByText("olga (operator) · tenant default")).toBeVisible();
  // Back on the Console's own origin (the operator's landing page), with no error.
  expect(new URL(page.url()).origin).toBe(sso.server.url);
  expect(page.url()).not.toContain("loginError");
});

test("a login the directory does not know comes back to the login page with the reason", async ({
  page,
  sso,
}) => {
  sso.provider.nextUser = "mallory";
  await page.goto(`${sso.server.url}/console/`);
  await page.getByRole("link", { name: "Log in with single sign-on" }).click();
  await expect(page.getByRole("alert")).toContainText("a user this Console does not know");
  expect((await page.request.get(`${sso.server.url}/console/api/session`)).status()).toBe(401);
});
