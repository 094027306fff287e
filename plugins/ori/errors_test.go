package ori_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestUnreachableIsNotGone: a request that got no answer at all (offline,
// DNS, refused, timeout, TLS) is reported as "could not reach <host>"
// with the cause and what to check, never as the platform being probably
// gone: nothing was heard from ORI. Each message is as the host's fetch
// gate writes it. It catches the old wording, where a laptop without
// network was told ORI had been switched off.
func TestUnreachableIsNotGone(t *testing.T) {
	const host = "api.openraadsinformatie.nl"
	for _, c := range []struct {
		name, msg string
		want      []string
	}{
		{"dns", host + ": dial tcp: lookup " + host + " on 127.0.0.53:53: no such host",
			[]string{"could not reach " + host + ": its name could not be resolved (DNS)", "check the network connection and DNS"}},
		{"dns timeout", host + ": dial tcp: lookup " + host + " on 10.0.0.1:53: read udp 10.0.0.2:41234->10.0.0.1:53: i/o timeout",
			[]string{"could not reach " + host + ": its name could not be resolved (DNS)"}},
		{"refused", host + ": dial tcp 145.131.8.1:443: connect: connection refused",
			[]string{"could not reach " + host + ": the connection was refused", "base_url"}},
		{"gate timeout", host + " did not answer within 30s",
			[]string{"could not reach " + host + ": no answer in time (timeout)"}},
		{"unreachable network", host + ": dial tcp 145.131.8.1:443: connect: network is unreachable",
			[]string{"could not reach " + host + ": there is no route to it"}},
		{"tls", host + ": tls: failed to verify certificate: x509: certificate has expired or is not yet valid",
			[]string{"could not reach " + host + ": the secure connection failed (TLS)", "system clock"}},
		{"reset", host + ": read tcp 10.0.0.2:5000->145.131.8.1:443: read: connection reset by peer",
			[]string{"could not reach " + host + ": the connection broke off"}},
		{"simulator port", "127.0.0.1:9100: dial tcp 127.0.0.1:9100: connect: connection refused",
			[]string{"could not reach 127.0.0.1:9100: the connection was refused"}},
	} {
		for _, tool := range []struct{ name, args, url string }{
			{"search", `{"query":"x"}`, base + "/ori_*/_search"},
			{"get_document", `{"id":"6074541"}`, docURL},
			{"list_organizations", `{}`, base + "/ori_*/_search"},
		} {
			t.Run(c.name+"/"+tool.name, func(t *testing.T) {
				h := sdktest.NewHost(t).HandleErr(tool.url, &connector.FetchError{Kind: connector.FetchUnavailable, Message: c.msg})
				res := sdktest.Call(t, ori.Plugin(), h, tool.name, tool.args)
				if !res.IsError {
					t.Fatalf("not an error: %s", res.Text)
				}
				for _, w := range append(c.want, tool.name+": ", "not a sign that it was switched off") {
					if !strings.Contains(res.Text, w) {
						t.Errorf("error %q\nlacks %q", res.Text, w)
					}
				}
				if strings.Contains(res.Text, "probably gone") {
					t.Errorf("a network failure is called gone: %s", res.Text)
				}
			})
		}
	}
}

// TestAnswersThatMeanGone: when ORI did answer, a 404 or 410 or a page
// that is not its API means it is probably gone; a gateway's 502/503/504
// is an outage that may pass, said so, with obv named either way. It
// catches a 503 during maintenance being reported as the switch-off.
func TestAnswersThatMeanGone(t *testing.T) {
	for _, c := range []struct {
		status    int
		body      string
		want, not string
	}{
		{404, "<html>Not Found</html>", "is probably gone", "try again"},
		{410, "", "is probably gone", "try again"},
		{503, "<html>503 Service Temporarily Unavailable</html>", "try again in a few minutes", "probably gone"},
		{504, "", "try again in a few minutes", "probably gone"},
	} {
		h := sdktest.NewHost(t).HandleBody(base+"/ori_*/_search", c.status, []byte(c.body))
		res := sdktest.Call(t, ori.Plugin(), h, "search", `{"query":"x"}`)
		if !res.IsError || !strings.Contains(res.Text, c.want) || strings.Contains(res.Text, c.not) || !strings.Contains(res.Text, "obv_search") {
			t.Errorf("HTTP %d: %s", c.status, res.Text)
		}
		if strings.Contains(res.Text, "could not reach") {
			t.Errorf("HTTP %d: an answer called unreachable: %s", c.status, res.Text)
		}
	}
}

// TestOtherUnavailableFailures: an "unavailable" that is not a network
// failure (an answer over the host's size limit) is passed on as it is,
// neither unreachable nor gone.
func TestOtherUnavailableFailures(t *testing.T) {
	h := sdktest.NewHost(t).HandleErr(base+"/ori_*/_search", &connector.FetchError{Kind: connector.FetchUnavailable,
		Message: "api.openraadsinformatie.nl: response exceeds the 33554432-byte limit"})
	res := sdktest.Call(t, ori.Plugin(), h, "search", `{"query":"x"}`)
	if !res.IsError || !strings.Contains(res.Text, "search: the request failed: api.openraadsinformatie.nl: response exceeds the 33554432-byte limit") ||
		strings.Contains(res.Text, "could not reach") || strings.Contains(res.Text, "probably gone") {
		t.Errorf("%s", res.Text)
	}
}
