// Package sdktest helps connector authors test their connectors natively:
// a fake [connector.Host] that answers fetches from recorded responses and
// records what the connector asked, so a test can assert the exact
// upstream requests, their service, cost and cache class.
//
// A Host is safe for concurrent use.
package sdktest
