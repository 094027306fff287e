package fetch_test

import "net/url"

type fakeURL struct{}

// parse normalises like the gate does: sorted query.
func (fakeURL) parse(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	u.RawQuery = u.Query().Encode()
	return u, nil
}
