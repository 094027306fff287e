package fetch

import (
	"crypto/tls"
	"errors"
	"net"
	"sync/atomic"
)

// heldConn is a connection the gate dialled: one whose next write the
// departure point can refuse.
//
// Why: HTTP/1's transport writes the request on the connection's own
// goroutine after GotConn returns, without looking at the request's
// context again, so cancelling the context at the departure point does not
// stop the write. A refused write writes nothing; the transport closes the
// connection and, the context being cancelled, does not retry. HTTP/2
// needs no such help: it checks the stream's context, under the
// connection's write lock, before it writes the headers.
type heldConn struct {
	net.Conn
	refuse atomic.Bool
}

var errHeld = errors.New("fetch: the request was stopped at its departure")

func (c *heldConn) Write(p []byte) (int, error) {
	if c.refuse.CompareAndSwap(true, false) {
		return 0, errHeld
	}
	return c.Conn.Write(p)
}

// hold makes the next write on c fail when c carries one request at a time
// (HTTP/1, over TLS or not) and was dialled by the gate. An HTTP/2
// connection is shared by other requests' streams and is left alone: the
// cancelled context stops the stream before its headers are written.
func hold(c net.Conn) {
	if tc, ok := c.(*tls.Conn); ok {
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			return
		}
		c = tc.NetConn()
	}
	if hc, ok := c.(*heldConn); ok {
		hc.refuse.Store(true)
	}
}
