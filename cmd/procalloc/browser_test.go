package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromiumPath returns Debian's headless-capable Chromium, or skips the test saying
// how to get it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a browser")
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: install Debian's chromium package (apt-get install chromium) to check HTML reports in a real browser")
	return ""
}

// pageInChromium is what headless Chromium made of an HTML file.
type pageInChromium struct {
	screenshot image.Image
	dom        string   // the DOM after scripts ran (--dump-dom)
	console    []string // console messages and uncaught errors, one per line
}

// consoleRE matches Chromium's log lines of the page's console (--enable-logging):
// [pid:tid:time:INFO:CONSOLE:LINE] "message", source: URL (LINE)
var consoleRE = regexp.MustCompile(`:CONSOLE[:(]\d*\)?\] (.*)`)

// openInChromium loads file in headless Chromium twice (a screenshot of width x
// height pixels, then the DOM), as root needs it: no sandbox, no GPU, a new empty
// profile, nothing fetched in the background.
func openInChromium(t *testing.T, chromium, file string, width, height int) pageInChromium {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: abs}).String()
	dir := t.TempDir()
	run := func(extra ...string) (stdout, stderr string) {
		profile, err := os.MkdirTemp(dir, "profile")
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"}, extra...)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, chromium, append(args, u)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %s: %v\n%s", strings.Join(extra, " "), err, errb.String())
		}
		return out.String(), errb.String()
	}
	var page pageInChromium
	shot := filepath.Join(dir, "screenshot.png")
	_, stderr := run("--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr)
	}
	defer f.Close()
	if page.screenshot, err = png.Decode(f); err != nil {
		t.Fatalf("%s: %v", shot, err)
	}
	dom, stderr2 := run("--dump-dom")
	page.dom = dom
	for _, l := range strings.Split(stderr+"\n"+stderr2, "\n") {
		if m := consoleRE.FindStringSubmatch(l); m != nil {
			page.console = append(page.console, m[1])
		}
	}
	return page
}

// inkFraction is the fraction of the image's pixels that differ from its most
// common colour (the background): 0 for a blank page.
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	counts := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}]++
		}
	}
	most, total := 0, b.Dx()*b.Dy()
	for _, c := range counts {
		most = max(most, c)
	}
	if total == 0 {
		return 0
	}
	return float64(total-most) / float64(total)
}

// The browser check itself: a blank page has no ink, a page with an SVG has some,
// and a console.error and an uncaught exception are both reported.
func TestChromiumCheckDetects(t *testing.T) {
	chromium := chromiumPath(t)
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank.html")
	bad := filepath.Join(dir, "bad.html")
	os.WriteFile(blank, []byte("<!doctype html><html><body></body></html>\n"), 0o644)
	os.WriteFile(bad, []byte(`<!doctype html><html><body><h1>Recommended: weights</h1>
<svg width="300" height="100"><rect width="300" height="100" fill="#36c"/></svg>
<script>console.error("boom"); document.body.appendChild(document.createTextNode("added by script")); undefinedFn();</script></body></html>
`), 0o644)
	p := openInChromium(t, chromium, blank, 400, 300)
	if ink := inkFraction(p.screenshot); ink != 0 || len(p.console) != 0 {
		t.Fatalf("blank page: ink %.4f, console %q", ink, p.console)
	}
	p = openInChromium(t, chromium, bad, 400, 300)
	if ink := inkFraction(p.screenshot); ink < 0.05 {
		t.Fatalf("a 300x100 rectangle on 400x300: ink %.4f", ink)
	}
	if !strings.Contains(p.dom, "added by script") || !strings.Contains(p.dom, "Recommended: weights") {
		t.Fatalf("DOM after scripts:\n%s", p.dom)
	}
	joined := strings.Join(p.console, "\n")
	if !strings.Contains(joined, `"boom"`) || !strings.Contains(joined, "Uncaught ReferenceError: undefinedFn") {
		t.Fatalf("console: %q", p.console)
	}
}

// procalloc plan's report.html, made from the repository's sample (the ibnetdiscover
// fat tree, plan/testdata/slurm.conf, the sacct trace), renders in a real browser
// (issue 29, item 7): headless Chromium's screenshot is not blank, the DOM after
// scripts shows report.json's recommendation in the #recommendation element, the
// plots are there as inline SVG, nothing is loaded from the network, and the page
// writes nothing to the console (no error, no uncaught exception).
func TestPlanReportInChromium(t *testing.T) {
	chromium := chromiumPath(t)
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := runCLI(t, "", "plan", "--graph", ibSample, "--node-name-map", ibNameMap,
		"--slurm-conf", "../../plan/testdata/slurm.conf", "--trace", sacctTrace, "--time-limit", "20s", "-o", out)
	if code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	var rep struct {
		Recommended    string `json:"recommended"`
		Recommendation string `json:"recommendation"`
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Recommended == "" || rep.Recommendation == "" {
		t.Fatalf("report.json: %v: %s", err, data)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// Self-contained: no resource fetched from anywhere (the SVG namespace is a name).
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`).FindAllString(string(html), -1) {
		t.Errorf("report.html loads %q: it must be self-contained", m)
	}
	page := openInChromium(t, chromium, filepath.Join(out, "report.html"), 1280, 1600)
	ink := inkFraction(page.screenshot)
	if ink < 0.01 {
		t.Errorf("the screenshot is blank: %.4f of its pixels differ from the background", ink)
	}
	if len(page.console) > 0 {
		t.Errorf("the page wrote to the console: %q", page.console)
	}
	m := regexp.MustCompile(`(?s)<[a-z]+[^>]*id="recommendation"[^>]*>(.*?)</p>`).FindStringSubmatch(page.dom)
	if m == nil {
		t.Fatalf("no #recommendation element in the DOM:\n%s", page.dom)
	}
	text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], "")), " ")
	if !strings.Contains(text, rep.Recommendation) || !strings.Contains(text, rep.Recommended) {
		t.Errorf("#recommendation shows %q; report.json recommends %s: %q", text, rep.Recommended, rep.Recommendation)
	}
	if n := strings.Count(page.dom, "<svg"); n == 0 {
		t.Errorf("no inline SVG plot in the DOM")
	}
	b := page.screenshot.Bounds()
	t.Logf("plan: %s", strings.SplitN(stdout, "\n", 2)[0])
	t.Logf("report.html (%d bytes) in %s: screenshot %dx%d, %.1f%% ink; #recommendation %q; %d inline SVG; %d console messages",
		len(html), chromiumVersion(chromium), b.Dx(), b.Dy(), 100*ink, text, strings.Count(page.dom, "<svg"), len(page.console))
}

func chromiumVersion(path string) string {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return path
	}
	return strings.TrimSpace(string(out))
}
