// Package url is the "url" subject: net/url.
package url

import (
	"net/url"
	"strings"
)

var base, _ = url.Parse("https://user@example.com:8443/a/b/c?q=1#top")

// Run parses the input as a URI reference, resolves it against a base,
// decodes its query and path, and serialises it again.
func Run(data []byte) error {
	u, err := url.Parse(string(data))
	if err != nil {
		return err
	}
	resolved := base.ResolveReference(u)
	_ = resolved.String()
	_ = u.Hostname() + u.Port() + u.EscapedPath() + u.EscapedFragment() + u.RequestURI()
	if u.User != nil {
		_, _ = u.User.Password()
		_ = u.User.String()
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return err
	}
	for k, vs := range u.Query() {
		_ = url.QueryEscape(k) + strings.Join(vs, ",")
	}
	if _, err := url.PathUnescape(u.EscapedPath()); err != nil {
		return err
	}
	if u.IsAbs() {
		if _, err := url.ParseRequestURI(string(data)); err != nil {
			return err
		}
	}
	_ = u.JoinPath("x", "..", "y").String()
	return nil
}
