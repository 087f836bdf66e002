"""``python -m translator FILE --program --optimized`` shows the Program after the passes."""
import textwrap

from translator.__main__ import main

SOURCE = textwrap.dedent('''
    import core
    from translator import declarative


    @declarative
    def dense(x, w, b):
        return core.layers.tanh(core.layers.matmul(x, w) + b)
''')


def test_program_after_the_passes(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    specs = ["--input-spec", "x:float32[-1,4]", "--input-spec", "w:float32[4,3]",
             "--input-spec", "b:float32[3]"]
    assert main([f"{path}:dense", "--program", *specs]) == 0
    plain = capsys.readouterr().out
    assert main([f"{path}:dense", "--program", "--optimized", *specs]) == 0
    optimized = capsys.readouterr().out
    assert "matmul" in plain and "tanh" in plain and " fc(" not in plain
    assert "# after passes:" in optimized and "fuse_fc 1" in optimized
    assert "fc(" in optimized and "tanh(" not in optimized
    assert main([f"{path}:dense", "--optimized"]) == 2
    assert "only apply with --program" in capsys.readouterr().err
