// Package sdktest helps connector authors test their connectors natively:
// a fake [connector.Host] that answers fetches from recorded responses and
// records what the connector asked, so a test can assert the exact
// upstream requests, their service, cost and cache class. The same host
// plays the MCP client of the call, so a test scripts what the user answers
// an elicitation, what the model answers a sampling request and which roots
// the client has (see [Host.OnElicit]).
//
// A Host is safe for concurrent use.
package sdktest
