package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// findChromium returns Debian's chromium (scripts/install-chromium.sh
// installs it; `make test` runs that script as root). Without it the
// browser tests skip, unless BESLUITBRON_REQUIRE_BROWSER is set.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BESLUITBRON_REQUIRE_BROWSER") != "" {
		t.Fatal("chromium not found and BESLUITBRON_REQUIRE_BROWSER is set: run scripts/install-chromium.sh as root")
	}
	t.Skip("chromium not found: the browser tests need Debian's chromium (scripts/install-chromium.sh as root, or apt-get install -y chromium); set BESLUITBRON_REQUIRE_BROWSER=1 to make this a failure")
	return ""
}

// browser starts a headless chromium with a fresh profile; the returned
// context runs actions in one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	if raceEnabled() {
		t.Skip("browser tests run without -race (make test runs them so); the pages' concurrency is raced in host/internal/serve/web")
	}
	path := findChromium(t)
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// Start the browser on a context without a deadline (a deadline on the
	// first run would bound the browser's life).
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// artifacts is where screenshots go: var/artifacts/browser (git-ignored).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(wasmbuild.Root(), "var", "artifacts", "browser")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(artifacts(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot %s", p)
}

// step runs actions with a deadline, failing the test with the page's
// HTML on error.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML("html"))
		t.Fatalf("%s: %v\n%s", what, err, clip(html, 4000))
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestBrowserSearchDocumentAndDownPlatform(t *testing.T) {
	ctx := browser(t)
	th := startTestHost(t, "")
	th.h.lstatus.CheckAll(context.Background())

	// The search page, in Dutch.
	step(t, ctx, "open the search page", chromedp.Navigate(th.url+"/"), chromedp.WaitVisible(chromedp.CSS("#q")))
	if lang, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.lang")); lang != "nl" {
		t.Errorf("html lang = %q, want nl", lang)
	}
	screenshot(t, ctx, "1-search-page")

	// Search across two platforms: a query for OpenBesluitvorming, a court
	// for Rechtspraak.
	step(t, ctx, "search",
		chromedp.SendKeys(chromedp.CSS("#q"), "begroting"),
		chromedp.SetValue(chromedp.CSS("#f-rechtspraak"), "http://standaarden.overheid.nl/owms/terms/Hoge_Raad_der_Nederlanden"),
		chromedp.Click(chromedp.CSS("form.search .field.q button")),
		chromedp.WaitVisible(chromedp.CSS("#r-obv .result")),
		chromedp.WaitVisible(chromedp.CSS("#r-rechtspraak .result")),
	)
	if got := text(t, ctx, "#r-obv"); !strings.Contains(got, "Raadsvoorstel begroting 2024") || !strings.Contains(got, "7 november 2024") {
		t.Errorf("OpenBesluitvorming results: %q", got)
	}
	if got := text(t, ctx, "#r-rechtspraak"); !strings.Contains(got, "ECLI:NL:GHAMS:2020:3025") {
		t.Errorf("Rechtspraak results: %q", got)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	if !strings.Contains(loc, "q=begroting") || !strings.Contains(loc, "f.rechtspraak=") {
		t.Errorf("the search is not a shareable GET URL: %s", loc)
	}
	screenshot(t, ctx, "2-results")

	// Open a document: the full text, a link to the original, and back.
	step(t, ctx, "open a document",
		chromedp.Click(chromedp.CSS("#r-obv .result h4 a")),
		chromedp.WaitVisible(chromedp.CSS("article.document h1")),
	)
	if got := text(t, ctx, "article.document h1"); got != "Raadsvoorstel begroting 2024" {
		t.Errorf("document title %q", got)
	}
	if got := text(t, ctx, ".doctext"); len(got) < 20 {
		t.Errorf("document text %q", got)
	}
	if href, _ := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("a.original"), "href")); !strings.HasPrefix(href.Value, "http") {
		t.Errorf("original link %+v", href)
	}
	screenshot(t, ctx, "3-document")
	step(t, ctx, "back to the results", chromedp.Click(chromedp.CSS("main > p:first-child a")), chromedp.WaitVisible(chromedp.CSS("#r-obv .result")))

	// The simulator fails OpenBesluitvorming: a new search marks it down
	// and still shows Rechtspraak.
	th.obv.down.Store(true)
	step(t, ctx, "search while OpenBesluitvorming is down",
		chromedp.SetValue(chromedp.CSS("#q"), "woningbouw"),
		chromedp.Click(chromedp.CSS("form.search .field.q button")),
		chromedp.WaitVisible(chromedp.CSS("#r-obv .error")),
	)
	if got := text(t, ctx, "#r-obv"); !strings.Contains(got, "OpenBesluitvorming is niet bereikbaar") {
		t.Errorf("down platform: %q", got)
	}
	if got := text(t, ctx, "#r-rechtspraak"); !strings.Contains(got, "ECLI:NL:GHAMS:2020:3025") {
		t.Errorf("the other platform suffers: %q", got)
	}
	screenshot(t, ctx, "4-platform-down")

	// The Laadstatus page marks it down too, and says it in English.
	th.h.lstatus.CheckAll(context.Background())
	step(t, ctx, "status page", chromedp.Navigate(th.url+"/status"), chromedp.WaitVisible(chromedp.CSS("#st-obv")))
	if got := text(t, ctx, "#st-obv"); !strings.Contains(got, "storing") {
		t.Errorf("status of obv: %q", got)
	}
	if got := text(t, ctx, "#st-rechtspraak"); !strings.Contains(got, "bereikbaar") {
		t.Errorf("status of rechtspraak: %q", got)
	}
	screenshot(t, ctx, "5-status")
	step(t, ctx, "switch to English", chromedp.Click(chromedp.CSS("#lang-switch")), chromedp.WaitVisible(chromedp.CSS("html[lang=en] #st-obv")))
	if got := text(t, ctx, "#st-obv"); !strings.Contains(got, "down") {
		t.Errorf("English status of obv: %q", got)
	}
	step(t, ctx, "the language sticks", chromedp.Navigate(th.url+"/"), chromedp.WaitVisible(chromedp.CSS("html[lang=en] #q")))
}

func TestBrowserPhoneAndWithoutJavaScript(t *testing.T) {
	ctx := browser(t)
	th := startTestHost(t, "")
	_, err := chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	step(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	step(t, ctx, "search without JavaScript",
		chromedp.Navigate(th.url+"/?q=begroting&p=obv&p=rechtspraak&f.rechtspraak=http%3A%2F%2Fstandaarden.overheid.nl%2Fowms%2Fterms%2FHoge_Raad_der_Nederlanden"),
		chromedp.WaitVisible(chromedp.CSS("#r-rechtspraak .result")),
	)
	if got := text(t, ctx, "#r-obv"); !strings.Contains(got, "Raadsvoorstel begroting 2024") {
		t.Errorf("results without JavaScript: %q", got)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("document.documentElement.scrollWidth > window.innerWidth"))
	if err != nil || overflow {
		t.Errorf("the page scrolls sideways on a phone (%v)", err)
	}
	screenshot(t, ctx, "6-phone-no-js")
	step(t, ctx, "document without JavaScript",
		chromedp.Navigate(th.url+"/document?p=rechtspraak&id="+strings.ReplaceAll("ECLI:NL:GHAMS:2020:3025", ":", "%3A")),
		chromedp.WaitVisible(chromedp.CSS("article.document h1")),
	)
	screenshot(t, ctx, "7-phone-document")
}
