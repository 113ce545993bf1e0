#version 150
// wec client, lighting of untextured geometry (fragment stage, with lit.vert): the
// colour lit.vert lit per vertex, nothing else. lit.frag's texture fetch (a white
// texture when none is bound) gives the same pixels at a cost: on a software renderer
// (llvmpipe) a texture fetch costs more than the rest of this stage, for every pixel
// of the board's squares, rim and pieces.

in vec4 v_color;

out vec4 o_color;

void main() {
    o_color = v_color;
}
