/** Login by a one-time code, the session's cookies, logout; axe on the login page. */
import { expectAccessible } from "./accessibility.ts";
import { expect, login, screenshot, test } from "./console-fixture.ts";

test("login by a one-time code sets HttpOnly SameSite=Lax cookies; logout ends it", async ({
  page,
  server,
}) => {
  await page.goto(`${server.url}/console/`);
  // The page asks which methods there are before it draws the form.
  await expect(page.getByLabel("User id", { exact: true })).toBeVisible();
  await expectAccessible(page, "the login page");
  await screenshot(page, "login");
  await login(page, server, "bob");
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === "tf_session");
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");
  expect(session?.path).toBe("/console");
  expect(cookies.find((c) => c.name === "tf_refresh")?.httpOnly).toBe(true);
  await expect(page.getByText("bob (user) · tenant default")).toBeVisible();
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByLabel("User id", { exact: true })).toBeVisible();
  const after = await page.request.get(`${server.url}/console/api/session`);
  expect(after.status()).toBe(401);
});

test("a wrong code is refused on the page and no session starts", async ({ page, server }) => {
  await page.goto(`${server.url}/console/`);
  await page.getByLabel("User id", { exact: true }).fill("carol");
  await page.getByRole("button", { name: "Send me a code" }).click();
  const real = await server.codeFor("carol");
  await page.getByLabel("Code", { exact: true }).fill(real === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  expect((await page.request.get(`${server.url}/console/api/session`)).status()).toBe(401);
});
