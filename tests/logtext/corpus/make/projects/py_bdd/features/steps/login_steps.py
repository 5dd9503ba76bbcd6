from behave import given, then, when

USERS = {}


def sign_in(email, password):
    user = USERS.get(email)
    if user is None or user["password"] != password:
        return {"page": "login", "error": "Invalid email or password"}
    if user.get("locked"):
        return {"page": "login", "error": "Account locked"}
    return {"page": "dashboard", "error": None}


@given('a user "{email}" with password "{password}"')
def step_user(context, email, password):
    USERS[email] = {"password": password}


@given('a locked user "{email}" with password "{password}"')
def step_locked(context, email, password):
    USERS[email] = {"password": password, "locked": True}


@when('she signs in with "{email}" and "{password}"')
@when('he signs in with "{email}" and "{password}"')
def step_sign_in(context, email, password):
    context.result = sign_in(email, password)


@then("she sees the dashboard")
def step_dashboard(context):
    assert context.result["page"] == "dashboard"


@then('she sees the error "{message}"')
@then('he sees the error "{message}"')
def step_error(context, message):
    assert context.result["error"] == message, f"expected {message!r}, got {context.result['error']!r}"
