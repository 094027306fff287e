package schedtest

var Claims = Scenario.claims
