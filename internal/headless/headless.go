// Package headless starts headless Chromium for Parley's web pages and
// signs a user in to one of them through Parley's own sign-in and
// authorization pages: what the browser tests (internal/browsertest) and
// the benchmark's browser phase (cmd/parley-bench -browser) share.
package headless

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// Chromium is the path of an installed Chromium, or "" when there is none.
func Chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Required tells whether a missing Chromium is an error rather than a
// reason to skip: CI (CI=true) installs it (see .ci/run), so there it is a
// broken set-up; the same rule as internal/pgtest's for PostgreSQL.
func Required() bool { return os.Getenv("CI") == "true" }

// Start starts headless Chromium at path with its profile in dataDir and
// answers a context for new tabs; stop ends the browser.
func Start(path, dataDir string) (browser context.Context, stop func(), err error) {
	// The pages need no network but Parley's: the flags keep Chromium
	// from reaching out for updates, sync and the like.
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(dataDir))
	browser, cancelBrowser := chromedp.NewContext(alloc)
	stop = func() { cancelBrowser(); cancelAlloc() }
	if err := chromedp.Do(browser); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start Chromium: %w", err)
	}
	return browser, stop, nil
}

// SignIn opens the page at pageURL (which shows body[data-state=signed-out]
// and a #sign-in link), signs in as email with password, approves the
// page's application and waits until the page shows again
// (body[data-state=ready]). It answers the consent page's text, which
// names the application.
func SignIn(ctx context.Context, pageURL, email, password string) (consent string, err error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="signed-out"]`)),
		chromedp.Click(chromedp.ID("sign-in")),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS("button[type=submit]")),
		chromedp.WaitVisible(chromedp.CSS("button[value=approve]")),
	); err != nil {
		return "", fmt.Errorf("sign in: %w", err)
	}
	if consent, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body"))); err != nil {
		return "", fmt.Errorf("read the consent page: %w", err)
	}
	// The approval goes through the callback and its hand-off page: wait
	// on the document the browser ends on, not on the one it leaves.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("button[value=approve]")),
		chromedp.WaitReady(chromedp.CSS(`body[data-state="ready"]`))); err != nil {
		return consent, fmt.Errorf("approve: %w", err)
	}
	return consent, nil
}
