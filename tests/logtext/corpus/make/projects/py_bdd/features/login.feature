Feature: Login
  Users sign in with their e-mail address and password.

  Scenario: Successful login
    Given a user "ana@example.com" with password "s3cret"
    When she signs in with "ana@example.com" and "s3cret"
    Then she sees the dashboard

  Scenario: Wrong password is refused
    Given a user "ana@example.com" with password "s3cret"
    When she signs in with "ana@example.com" and "wrong"
    Then she sees the error "Invalid e-mail or password"

  Scenario: Locked account
    Given a locked user "bob@example.com" with password "pw"
    When he signs in with "bob@example.com" and "pw"
    Then he sees the error "Account locked"
