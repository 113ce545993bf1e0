#version 150
// wec client, lighting (fragment stage): the colour lit.vert lit per vertex, times the
// first texture (white when none: text and textured cards keep their texture). Nothing
// else per pixel, so large lit surfaces (the board) cost no more than unlit ones.

uniform sampler2D p3d_Texture0;

in vec4 v_color;
in vec2 v_texcoord;

out vec4 o_color;

void main() {
    o_color = v_color * texture(p3d_Texture0, v_texcoord);
}
