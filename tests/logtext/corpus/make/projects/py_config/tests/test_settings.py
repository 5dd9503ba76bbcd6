from app.settings import load


def test_load(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('name = "x"\n')
    assert load(path) == {"name": "x"}
